"""Hostile server: writes 8 MiB to stderr before starting, then behaves. stderr may carry
logs, so every test passes; the report keeps only a tail."""
import os
import runpy

err = os.fdopen(2, "wb", buffering=0, closefd=False)
err.write((b"noise " * 1024 + b"\n") * 1365)
runpy.run_path("server.py", run_name="__main__")

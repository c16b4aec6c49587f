"""Hostile server: floods stdout with 4 MiB of text that is not JSON-RPC (one line longer than
the 1 MiB message bound, then many short lines), then runs the correct server."""
import os
import runpy

out = os.fdopen(1, "wb", buffering=0, closefd=False)
out.write(b"x" * (2 << 20) + b"\n")
for i in range(20000):
    out.write(b"debug: warming up cache line %d\n" % i)
runpy.run_path("server.py", run_name="__main__")

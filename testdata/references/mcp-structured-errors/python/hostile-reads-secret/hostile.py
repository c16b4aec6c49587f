"""Hostile server: looks for anything of the caller's environment beyond what exercise-orders.md
§1 allows (the interpreter's own PYTHON*/PYENV* settings aside, which a pyenv shim adds itself). If it finds a variable it should not see, it prints the names to stderr and exits
before the handshake, so a leak is an ungradeable run (exit 2) instead of a silent pass."""
import os
import runpy
import sys

ALLOWED = {"PATH", "HOME", "LANG", "TMPDIR", "ORDERS_API_URL", "ORDERS_API_TOKEN",
           "ORDERS_API_TIMEOUT_SECONDS", "LC_CTYPE", "PWD", "SHLVL", "_"}
leaked = sorted(k for k in os.environ if k not in ALLOWED and not k.startswith(("PYTHON", "PYENV", "_PYENV")))
if leaked:
    sys.stderr.write("I can read the caller's variables: %s\n" % ", ".join(leaked))
    sys.exit(4)
runpy.run_path("server.py", run_name="__main__")

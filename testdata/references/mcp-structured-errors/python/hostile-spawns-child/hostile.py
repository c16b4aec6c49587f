"""Hostile server: starts a child process that would outlive it (same process group), then
runs the correct server. The grader kills the whole group at the end of the run."""
import runpy
import subprocess
import sys

subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
runpy.run_path("server.py", run_name="__main__")

"""Hostile server: starts a child in a new session (setsid), escaping the server's process
group, then runs the correct server. On Linux the grader is a child subreaper and finds it."""
import runpy
import subprocess
import sys

subprocess.Popen([sys.executable, "-c", "import os, time; os.setsid() if os.getsid(0) != os.getpid() else None; time.sleep(600)"],
                 start_new_session=True)
runpy.run_path("server.py", run_name="__main__")

"""The client harness's wire protocol. You need not touch this file.

`kata grade` plays the orders server and a virtual clock, and talks to client.py in JSON lines
over stdin/stdout. For every scenario it sends, this shim calls your

    call_with_retry(invoke, sleep, log, request, policy) -> (action, category, result)

with three functions that do the talking:

    invoke(request)        -> the tool result's payload (a dict: the typed error or the success)
    sleep(seconds)         -> returns when the virtual clock has advanced; no real time passes
    log(category, message) -> records a log line (the grader checks those with category "unknown")

and reports what you return as the scenario's outcome. action is one of "success", "escalate",
"abort", "exhausted"; category is the payload's category as you classified it ("unknown" when it
had none you know, None for success); result is the last payload.

While the shim runs, print() writes to stderr, so a debugging print cannot break the protocol.
An exception in call_with_retry prints its traceback to stderr and ends the process with status
1: the grader fails that scenario, shows the traceback, restarts the client and goes on.
"""

import json
import sys
import traceback

ACTIONS = ("success", "escalate", "abort", "exhausted")


class ProtocolError(Exception):
    pass


class _Channel:
    def __init__(self, stdin, stdout):
        self._in = stdin
        self._out = stdout

    def send(self, message):
        self._out.write(json.dumps(message) + "\n")
        self._out.flush()

    def receive(self):
        """The next message, or None at end of input."""
        while True:
            raw = self._in.readline()
            if not raw:
                return None
            if raw.strip():
                break
        try:
            message = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise ProtocolError("not a JSON line from the grader: %r (%s)" % (raw[:200], exc))
        if not isinstance(message, dict):
            raise ProtocolError("expected a JSON object from the grader, got %r" % (message,))
        return message

    def expect(self, kind):
        message = self.receive()
        if message is None:
            raise EOFError("the grader closed the connection while we waited for %r" % kind)
        if message.get("type") != kind:
            raise ProtocolError("expected a %r message, got %r" % (kind, message))
        return message


def _run_scenario(channel, call_with_retry, scenario):
    def invoke(request):
        channel.send({"type": "invoke", "request": request})
        return channel.expect("result").get("result")

    def sleep(seconds):
        channel.send({"type": "sleep", "seconds": seconds})
        channel.expect("slept")

    def log(category, message):
        channel.send({"type": "log", "category": category, "message": str(message)})

    outcome = call_with_retry(invoke, sleep, log, scenario.get("request"), scenario.get("policy"))
    if not isinstance(outcome, (tuple, list)) or len(outcome) != 3:
        raise TypeError("call_with_retry must return (action, category, result), got %r"
                        % (outcome,))
    action, category, result = outcome
    if action not in ACTIONS:
        print("call_with_retry returned action %r; expected one of %s"
              % (action, ", ".join(ACTIONS)), file=sys.stderr)
    channel.send({"type": "outcome", "id": scenario.get("id"), "action": action,
                  "category": category, "result": result})


def main(call_with_retry):
    real_stdout = sys.__stdout__
    sys.stdout = sys.stderr  # print() in learner code goes to stderr, never onto the protocol
    channel = _Channel(sys.stdin.buffer, real_stdout)
    try:
        while True:
            message = channel.receive()
            if message is None:
                return 0
            if message.get("type") != "scenario":
                print("kata_client_shim: ignoring %r (waiting for a scenario)" % (message,),
                      file=sys.stderr)
                continue
            _run_scenario(channel, call_with_retry, message)
    except EOFError:
        return 0
    except (BrokenPipeError, KeyboardInterrupt):
        return 0
    except ProtocolError as exc:
        print("kata_client_shim: %s" % exc, file=sys.stderr)
        return 1
    except Exception:
        traceback.print_exc(file=sys.stderr)
        return 1


def run(call_with_retry):
    """Entry point used by client.py."""
    code = main(call_with_retry)
    sys.stderr.flush()
    sys.exit(code)

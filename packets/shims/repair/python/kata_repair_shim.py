"""The repair-loop harness's wire protocol. You need not touch this file.

`kata grade` plays the orders server, the model and a virtual clock, and talks to client.py in
JSON lines over stdin/stdout. For every scenario it sends, this shim calls your

    call_with_repair(invoke, propose, sleep, log, request, policy) -> (action, category, result)

with four functions that do the talking:

    invoke(request)            -> the tool result's payload (a dict: the typed error or the success)
    propose(request, feedback) -> the model's next arguments (a dict), given the request that
                                  failed and the payload that said why
    sleep(seconds)             -> returns when the virtual clock has advanced; no real time passes
    log(category, message)     -> records a log line (the grader checks those with category "unknown")

and reports what you return as the scenario's outcome. action is one of "success", "abort",
"exhausted"; category is the payload's category as you classified it ("unknown" when it had none
you know, None for success); result is the last payload.

While the shim runs, print() writes to stderr, so a debugging print cannot break the protocol.
An exception in call_with_repair prints its traceback to stderr and ends the process with status
1: the grader fails that scenario, shows the traceback, restarts the client and goes on.
"""

import json
import sys
import traceback

ACTIONS = ("success", "abort", "exhausted")


class ProtocolError(Exception):
    pass


def _send(message):
    sys.__stdout__.write(json.dumps(message) + "\n")
    sys.__stdout__.flush()


def _receive():
    """The next message from the grader, or None at end of input."""
    for raw in iter(sys.stdin.buffer.readline, b""):
        if not raw.strip():
            continue
        try:
            message = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise ProtocolError("not a JSON line from the grader: %r (%s)" % (raw[:200], exc))
        if not isinstance(message, dict):
            raise ProtocolError("expected a JSON object from the grader, got %r" % (message,))
        return message
    return None


def _expect(kind):
    message = _receive()
    if message is None:
        raise EOFError("the grader closed the connection while we waited for %r" % kind)
    if message.get("type") != kind:
        raise ProtocolError("expected a %r message, got %r" % (kind, message))
    return message


def _invoke(request):
    _send({"type": "invoke", "request": request})
    return _expect("result").get("result")


def _propose(request, feedback):
    _send({"type": "propose", "request": request, "feedback": feedback})
    return _expect("proposal").get("arguments")


def _sleep(seconds):
    _send({"type": "sleep", "seconds": seconds})
    _expect("slept")


def _log(category, message):
    _send({"type": "log", "category": category, "message": str(message)})


def _run_scenario(call_with_repair, scenario):
    outcome = call_with_repair(_invoke, _propose, _sleep, _log, scenario.get("request"),
                               scenario.get("policy"))
    if not isinstance(outcome, (tuple, list)) or len(outcome) != 3:
        raise TypeError("call_with_repair must return (action, category, result), got %r"
                        % (outcome,))
    action, category, result = outcome
    if action not in ACTIONS:
        print("call_with_repair returned action %r; expected one of %s"
              % (action, ", ".join(ACTIONS)), file=sys.stderr)
    _send({"type": "outcome", "id": scenario.get("id"), "action": action,
           "category": category, "result": result})


def main(call_with_repair):
    sys.stdout = sys.stderr  # print() in learner code goes to stderr, never onto the protocol
    try:
        while True:
            message = _receive()
            if message is None:
                return 0
            if message.get("type") != "scenario":
                print("kata_repair_shim: ignoring %r (waiting for a scenario)" % (message,),
                      file=sys.stderr)
                continue
            _run_scenario(call_with_repair, message)
    except (EOFError, BrokenPipeError, KeyboardInterrupt):
        return 0
    except ProtocolError as exc:
        print("kata_repair_shim: %s" % exc, file=sys.stderr)
        return 1
    except Exception:
        traceback.print_exc(file=sys.stderr)
        return 1


def run(call_with_repair):
    """Entry point used by client.py."""
    code = main(call_with_repair)
    sys.stderr.flush()
    sys.exit(code)

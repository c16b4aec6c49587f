"""The orders MCP server: your file.

It runs and lists its one tool, create_return, with the whole input schema, but the handler is
not written yet: every call answers with a placeholder error. The TODO(step N) comments point at
the steps of TASK.md. Run `kata grade` to see what is still missing.

mcp_shim.py does the protocol for you (you need not touch it): a handler gets the call's
arguments as a dict, exactly as the model sent them (the shim checks nothing against the schema),
and returns ok(payload) or tool_error(payload).
"""

import json
import os
import urllib.error
import urllib.request

from mcp_shim import Server, log, ok, tool_error

API_URL = os.environ.get("ORDERS_API_URL", "").rstrip("/")
API_TOKEN = os.environ.get("ORDERS_API_TOKEN", "")
TIMEOUT_SECONDS = float(os.environ.get("ORDERS_API_TIMEOUT_SECONDS") or 5)

server = Server("orders", "0.1.0")


# Talk to the Orders API directly, ignoring proxy settings (macOS applies its system proxy even
# with a clean environment, and 127.0.0.1 is not always exempt).
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def api_post(path, body):
    """POST body as JSON to API_URL + path and return the decoded JSON answer.

    Raises urllib.error.HTTPError for a 4xx/5xx answer (e.code is the status, e.read() the
    body, e.g. b'{"error": "return_window_closed"}'), urllib.error.URLError when the service
    cannot be reached, and TimeoutError / ConnectionError when it is too slow or drops the
    connection. Keep the timeout: without it a slow backend hangs the whole call.
    """
    request = urllib.request.Request(
        API_URL + path, data=json.dumps(body).encode("utf-8"), method="POST",
        headers={"Authorization": "Bearer " + API_TOKEN, "Accept": "application/json",
                 "Content-Type": "application/json"})
    with OPENER.open(request, timeout=TIMEOUT_SECONDS) as response:
        return json.loads(response.read().decode("utf-8"))


# The whole input schema, "required" kept: it is what the model reads before it calls. The shim
# does not enforce it, so every call reaches create_return below, and checking the arguments
# against it is your code's job (steps 2 and 3).
CREATE_RETURN_SCHEMA = {
    "type": "object",
    "properties": {
        "order_id": {"type": "string", "pattern": "^ORD-[0-9]{4,8}$",
                     "examples": ["ORD-8821", "ORD-104427"]},
        "quantity": {"type": "integer", "minimum": 1, "maximum": 10},
        "reason": {"type": "string",
                   "enum": ["damaged", "wrong_item", "not_needed", "arrived_late"]},
        "email": {"type": "string", "format": "email", "examples": ["ana.lopez@example.com"]},
        "note": {"type": "string", "maxLength": 200},
    },
    "required": ["order_id", "quantity", "reason", "email"],
    "additionalProperties": False,
}


@server.tool("create_return",
             "Open a return for items of one order and email the customer a return label.",
             CREATE_RETURN_SCHEMA)
def create_return(arguments):
    # Logs go to stderr with log(...): print() would write to stdout, which carries JSON-RPC and
    # nothing else. Mind what you log (step 4).
    # TODO(step 1): on a valid call, send one POST /returns with the arguments as its body
    # (api_post) and answer ok({"return": <the API's body>}).
    # TODO(step 2): check the arguments against CREATE_RETURN_SCHEMA before any request. A
    # violation is a tool_error with the typed payload {"isError": True, "errorCategory":
    # "validation", "isRetryable": False, "message": ..., "violations": [...]}, each violation
    # {"field": "quantity", "constraint": "maximum" (the JSON Schema keyword that failed),
    # "expected": what would pass, with a valid example, "received": the value sent}. Nothing is
    # sent to the API while an argument is invalid.
    # TODO(step 3): report every violation at once, one per broken argument (a missing required
    # one, a value of the wrong type, an unknown argument too), and none for a valid argument.
    # TODO(step 4): "received" never echoes a secret: redact a string that starts with sk_, sk-,
    # ghp_, gho_, github_pat_, xoxb-, xoxp- or AKIA, or has 32 or more characters and no white
    # space, here and everywhere else in the result (message, text).
    # TODO(step 5): what a model cannot fix by changing its arguments is not validation and not
    # retryable: a 404 is not_found, a 409 business, a 401 or 403 auth. A 5xx, a timeout
    # or a dropped connection is transient, the one retryable category. Catch failures
    # by kind; a bare `except Exception` also files your own bugs as transient.
    log("create_return", "called, but not written yet")
    return tool_error({
        "isError": True,
        "errorCategory": "not_written_yet",  # not a category of this kata: replace it all
        "isRetryable": False,
        "message": "create_return is not written yet.",
        "violations": [],
    })


if __name__ == "__main__":
    server.run()

"""The orders MCP server: your file.

It runs, lists lookup_order and answers the happy path. Its failures are the anti-pattern this
kata is about: one generic string, no flags, so the client has to guess. The TODO(step N)
comments point at the steps of TASK.md. Run `kata grade` to see what is still missing.

mcp_shim.py does the protocol for you (you need not touch it): a handler gets the call's
arguments as a dict and returns ok(payload) or tool_error(payload).
"""

import json
import os
import urllib.error
import urllib.parse
import urllib.request

from mcp_shim import Server, log, ok, tool_error

# These three values come from the environment, which .mcp.json fills with ${VAR} references.
# TODO(step 2): if ORDERS_API_URL or ORDERS_API_TOKEN is empty, write a message to stderr with
# log(...) and exit, rather than sending "Authorization: Bearer " with nothing after it.
API_URL = os.environ.get("ORDERS_API_URL", "").rstrip("/")
API_TOKEN = os.environ.get("ORDERS_API_TOKEN", "")
TIMEOUT_SECONDS = float(os.environ.get("ORDERS_API_TIMEOUT_SECONDS") or 5)

server = Server("orders", "0.1.0")


# Talk to the Orders API directly, ignoring proxy settings (macOS applies its system proxy even
# with a clean environment, and 127.0.0.1 is not always exempt).
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def api_get(path):
    """GET API_URL + path and return the decoded JSON body.

    Raises urllib.error.HTTPError for a 4xx/5xx answer (e.code is the status, e.headers the
    headers), urllib.error.URLError when the service cannot be reached, and TimeoutError /
    ConnectionError when it is too slow or drops the connection. Keep the timeout: without it a
    slow backend hangs the whole call.
    """
    request = urllib.request.Request(
        API_URL + path,
        headers={"Authorization": "Bearer " + API_TOKEN, "Accept": "application/json"},
    )
    with OPENER.open(request, timeout=TIMEOUT_SECONDS) as response:
        return json.loads(response.read().decode("utf-8"))


# The argument is declared with its type but NOT listed as "required". A server (or SDK) that
# validates input against the schema before the handler runs answers a missing argument with its
# own untyped text, and the client gets no errorCategory. Every failure, a missing argument
# included, must come back as your typed payload, so the handler checks presence and format itself.
# Leaving "required" out is a workaround with a cost: the model reading the schema no longer
# sees which arguments it must send. This shim passes every call to the handler, so you may
# list them in "required" and still answer with the typed payload (see the knowledge layer).
LOOKUP_ORDER_SCHEMA = {
    "type": "object",
    "properties": {
        "order_id": {"type": "string", "description": "The order id, e.g. ORD-8821."},
    },
}


@server.tool("lookup_order", "Look up one order by its id.", LOOKUP_ORDER_SCHEMA)
def lookup_order(arguments):
    # TODO(step 5): logs go to stderr with log(...). print() would write to stdout, which
    # carries JSON-RPC and nothing else.
    log("lookup_order", arguments)
    # TODO(step 3): validate the argument yourself before any request: a missing order_id, "",
    # or one that is not ORD- and four or more digits is fatal, and nothing is sent to the API.
    order_id = arguments.get("order_id")
    try:
        order = api_get("/orders/" + urllib.parse.quote(str(order_id), safe=""))
        return ok({"order": order})
    except Exception as e:
        # TODO(step 3): map every failure to its category (auth, rate_limit, transient, fatal)
        # with isError, errorCategory, isRetryable and retryAfterSeconds. Catch failures by kind
        # (HTTP status, timeout, connection error): a bare `except Exception` also files your own
        # bugs as transient.
        # TODO(step 4): on a 429 or a 503 that sends Retry-After (seconds or an HTTP-date),
        # carry it as retryAfterSeconds, a whole number; null whenever the API stated no wait.
        # TODO(step 5): a failure is a tool result with isError true, never a JSON-RPC error, and
        # the server never repeats a request on its own.
        return tool_error({"error": f"failed: {e}"})


if __name__ == "__main__":
    server.run()

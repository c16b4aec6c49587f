"""The orders MCP server: your file.

It runs, lists its two tools and answers the happy path. Its failures are the anti-pattern this
kata is about: one generic string, no flags, so the agent has to guess. The TODO(step N) comments
point at the steps of TASK.md. Run `kata grade` to see what is still missing.

mcp_shim.py does the protocol for you (you need not touch it): a handler gets the call's
arguments as a dict and returns ok(payload) or tool_error(payload).
"""

import json
import os
import urllib.error
import urllib.parse
import urllib.request

from mcp_shim import Server, log, ok, tool_error

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


# The arguments are declared with their types but NOT listed as "required". A server (or SDK)
# that validates input against the schema before the handler runs answers a missing argument with
# its own untyped text, and the agent gets no errorCategory. Every failure, a missing argument
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

SEARCH_ORDERS_SCHEMA = {
    "type": "object",
    "properties": {
        "customer_id": {"type": "string", "description": "The customer id, e.g. C-1042."},
    },
}


@server.tool("lookup_order", "Look up one order by its id.", LOOKUP_ORDER_SCHEMA)
def lookup_order(arguments):
    # TODO(step 5): logs go to stderr with log(...). print() would write to stdout, which
    # carries JSON-RPC and nothing else.
    log("lookup_order", arguments)
    # TODO(step 1): validate the argument yourself before any request: a missing order_id or one
    # that does not look like ORD- and four or more digits is a validation error, and nothing is
    # sent to the API.
    order_id = arguments.get("order_id")
    try:
        order = api_get("/orders/" + urllib.parse.quote(str(order_id), safe=""))
        return ok({"order": order})
    except Exception as e:
        # TODO(step 2): map every backend failure to its category (auth, not_found, rate_limit,
        # transient) with isError, errorCategory, isRetryable, retryAfterSeconds and explanation.
        # TODO(step 3): on a 429, and on a 503 that sends it, carry Retry-After (seconds
        # or an HTTP-date) as retryAfterSeconds; null when the API stated no wait.
        # TODO(step 5): a failure is a tool result with isError true, never a JSON-RPC error.
        return tool_error({"error": f"failed: {e}"})


@server.tool("search_orders", "List every order of one customer.", SEARCH_ORDERS_SCHEMA)
def search_orders(arguments):
    log("search_orders", arguments)
    # TODO(step 1): validate customer_id (C- and digits) before any request.
    customer_id = arguments.get("customer_id")
    try:
        # TODO(step 4): this reads page 1 only. Follow next_page until it is null.
        body = api_get(
            "/customers/" + urllib.parse.quote(str(customer_id), safe="") + "/orders?page=1"
        )
        orders = body["orders"]
        if not orders:
            # TODO(step 4): a customer with no orders is a success: {"orders": []}.
            return tool_error({"error": "failed: no orders found"})
        return ok({"orders": orders})
    except Exception as e:
        # TODO(step 2) and TODO(step 3): the same typed mapping as lookup_order.
        return tool_error({"error": f"failed: {e}"})


if __name__ == "__main__":
    server.run()

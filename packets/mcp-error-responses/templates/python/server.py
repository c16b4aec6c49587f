"""The orders MCP server: your file.

It runs, lists its three tools and answers the happy path. Its failures are the anti-pattern this
kata is about: one generic "failed" string with no category, no flag and no context, so the agent
has to guess. The TODO(step N) comments point at the steps of TASK.md. Run `kata grade` to see
what is still missing.

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


def api_request(method, path, body=None):
    """Send one request to API_URL + path and return the decoded JSON body.

    Raises urllib.error.HTTPError for a 4xx/5xx answer (e.code is the status, e.headers the
    headers, e.read() the body), urllib.error.URLError when the service cannot be reached, and
    TimeoutError / ConnectionError when it is too slow or drops the connection. Keep the timeout:
    without it a slow backend hangs the whole call.
    """
    headers = {"Authorization": "Bearer " + API_TOKEN, "Accept": "application/json"}
    data = None
    if body is not None:
        data = json.dumps(body).encode("utf-8")
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(API_URL + path, data=data, headers=headers, method=method)
    with OPENER.open(request, timeout=TIMEOUT_SECONDS) as response:
        return json.loads(response.read().decode("utf-8"))


def api_get(path):
    return api_request("GET", path)


def api_post(path, body):
    return api_request("POST", path, body)


# The arguments are declared with their types but NOT listed as "required". A server (or SDK)
# that validates input against the schema before the handler runs answers a missing argument with
# its own untyped text, and the agent gets no errorCategory and no field. Every failure, a missing
# argument included, must come back as your typed payload, so the handlers check it themselves.
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

PROCESS_REFUND_SCHEMA = {
    "type": "object",
    "properties": {
        "order_id": {"type": "string", "description": "The order to refund, e.g. ORD-8821."},
        "amount": {"type": "number", "description": "The refund amount, more than 0."},
    },
}


@server.tool("lookup_order", "Look up one order by its id.", LOOKUP_ORDER_SCHEMA)
def lookup_order(arguments):
    # TODO(step 6): logs go to stderr with log(...). print() would write to stdout, which
    # carries JSON-RPC and nothing else.
    log("lookup_order", arguments)
    # TODO(step 1): validate the argument yourself before any request: a missing order_id or one
    # that is not ORD- and four or more digits is a validation error with field "order_id", and
    # nothing is sent to the API.
    order_id = arguments.get("order_id")
    try:
        order = api_get("/orders/" + urllib.parse.quote(str(order_id), safe=""))
        return ok({"order": order})
    except Exception as e:
        # TODO(step 1): a 404 is validation too, with field "order_id".
        # TODO(step 2): 429, 5xx, a timeout and a refused or dropped connection are transient.
        # TODO(step 4): 401 and 403 are permission.
        # Every failure carries isError, errorCategory, isRetryable, a message for the customer,
        # attemptedQuery (with every argument value) and partialResults (null here). Catch
        # failures by kind; a bare `except Exception` also files your own bugs as transient.
        # TODO(step 6): a failure is a tool result with isError true, never a JSON-RPC error.
        return tool_error({"error": f"failed: {e}"})


@server.tool("search_orders", "List every order of one customer, all pages.",
             SEARCH_ORDERS_SCHEMA)
def search_orders(arguments):
    log("search_orders", arguments)
    # TODO(step 1): validate customer_id (C- and one or more digits) before any request.
    customer_id = arguments.get("customer_id")
    orders = []
    page = 1
    try:
        while page is not None:
            body = api_get(
                "/customers/" + urllib.parse.quote(str(customer_id), safe="")
                + "/orders?page=" + str(page)
            )
            orders.extend(body["orders"])
            page = body.get("next_page")
    except Exception as e:
        if orders:
            # TODO(step 2): this passes part of the history off as all of it. A failure on a
            # later page is a transient error whose partialResults carries the orders fetched
            # so far.
            return ok({"orders": orders})
        # TODO(step 1), TODO(step 2) and TODO(step 4): the same typed mapping as lookup_order;
        # a 404 names field "customer_id".
        return tool_error({"error": f"failed: {e}"})
    if not orders:
        # TODO(step 5): a customer with no orders is a success: {"orders": []}.
        return tool_error({"error": "failed: no orders found"})
    return ok({"orders": orders})


@server.tool("process_refund", "Refund an amount of one order (at most 500 without approval).",
             PROCESS_REFUND_SCHEMA)
def process_refund(arguments):
    log("process_refund", arguments)
    # TODO(step 1): check order_id first, then amount: a JSON number greater than 0 (bool is
    # not a number, even though Python makes it a subclass of int). Report the first argument
    # that fails in field, and send nothing.
    # TODO(step 3): a refund above 500 is a business error, not retryable. Check it yourself
    # before any request, or map the API's 422 refund_limit_exceeded; the payload is the same.
    order_id = arguments.get("order_id")
    amount = arguments.get("amount")
    try:
        refund = api_post("/refunds", {"order_id": order_id, "amount": amount})
        return ok({"refund": refund})
    except Exception as e:
        # TODO(step 2): a timeout or 5xx on a refund is transient, but the refund may already
        # have been applied: the message must say it could not be confirmed, never that trying
        # again is safe. And never send the POST a second time yourself.
        # TODO(step 4): 401 and 403 are permission; a 404 is validation with field "order_id".
        return tool_error({"error": f"failed: {e}"})


if __name__ == "__main__":
    server.run()

"""The orders MCP server: a BROKEN reference for mcp-error-responses.

It is correct/server.py with one fault, marked FAULT below:
once process_refund's arguments have passed validation, attemptedQuery records the order id only:
the business, permission and transient errors of a refund leave out the amount.
"""

import http.client
import json
import math
import os
import re
import socket
import urllib.error
import urllib.parse
import urllib.request

from mcp_shim import Server, log, ok, tool_error

API_URL = os.environ.get("ORDERS_API_URL", "").rstrip("/")
API_TOKEN = os.environ.get("ORDERS_API_TOKEN", "")
try:
    TIMEOUT_SECONDS = float(os.environ.get("ORDERS_API_TIMEOUT_SECONDS") or 5)
except ValueError:
    log("ORDERS_API_TIMEOUT_SECONDS is not a number; using 5")
    TIMEOUT_SECONDS = 5.0

server = Server("orders", "1.0.0")

RETRYABLE = {
    "transient": True,
    "validation": False,
    "business": False,
    "permission": False,
}

ORDER_ID = re.compile(r"ORD-[0-9]{4,}")
CUSTOMER_ID = re.compile(r"C-[0-9]+")

REFUND_LIMIT = 500  # refunds above this need a manager's approval

MAX_PAGES = 1000  # a guard against a service whose next_page never ends


class ToolFailure(Exception):
    """A failure with its category, raised below and turned into the typed payload.

    message is for the customer; detail is for whoever reads the log (status, page, timeout) and
    travels in attemptedQuery, never in message.
    """

    def __init__(self, category, message, detail=None, field=None):
        super().__init__(message)
        self.category = category
        self.message = message
        self.detail = detail
        self.field = field
        self.partial_results = None


# -- attemptedQuery -------------------------------------------------------------------------------

def show_value(value):
    """An argument value as it appears in attemptedQuery: strings as they are, the rest as JSON."""
    if isinstance(value, str):
        return value if value else '""'
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


def attempted_query(tool, arguments, names, detail=None):
    """The call as it was received, every argument value included, e.g.

    "process_refund order_id: ORD-8821, amount: 750" or "lookup_order with no order_id".
    """
    given = [f"{name}: {show_value(arguments[name])}" for name in names if name in arguments]
    given += [f"{name}: {show_value(arguments[name])}"
              for name in sorted(arguments) if name not in names]
    missing = [name for name in names if name not in arguments]
    text = tool
    if given:
        text += " " + ", ".join(given)
    if missing:
        text += (", with no " if given else " with no ") + " and no ".join(missing)
    if detail:
        text += f" ({detail})"
    return text


def typed_error(failure, tool, arguments, names):
    payload = {
        "isError": True,
        "errorCategory": failure.category,
        "isRetryable": RETRYABLE[failure.category],
        "message": failure.message,
        "attemptedQuery": attempted_query(tool, arguments, names, failure.detail),
        "partialResults": failure.partial_results,
    }
    if failure.category == "validation":
        payload["field"] = failure.field
    log("error:", json.dumps(payload))
    return tool_error(payload)


# -- validation (step 1) --------------------------------------------------------------------------

def require_id(arguments, name, pattern, missing_message, malformed_message):
    value = arguments.get(name)
    if value is None:
        raise ToolFailure("validation", missing_message, "no request sent", field=name)
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise ToolFailure(
            "validation", malformed_message, "malformed, no request sent", field=name)
    return value


def require_order_id(arguments):
    return require_id(
        arguments, "order_id", ORDER_ID,
        "I need the order number to go on. Order numbers look like ORD-8821.",
        "That order number doesn't look right. Order numbers look like ORD-8821.")


def require_customer_id(arguments):
    return require_id(
        arguments, "customer_id", CUSTOMER_ID,
        "I need the customer number to go on. Customer numbers look like C-1042.",
        "That customer number doesn't look right. Customer numbers look like C-1042.")


def is_number(value):
    # bool is a subclass of int in Python, but JSON true is not a number.
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def require_amount(arguments):
    value = arguments.get("amount")
    if value is None:
        raise ToolFailure(
            "validation", "I need the amount to refund, for example 120.00.",
            "no request sent", field="amount")
    if not is_number(value) or not math.isfinite(value):
        raise ToolFailure(
            "validation", "The refund amount must be a number, for example 120.00.",
            "amount is not a number, no request sent", field="amount")
    if value <= 0:
        raise ToolFailure(
            "validation", "The refund amount must be more than zero.",
            "amount must be greater than 0, no request sent", field="amount")
    return value


# -- the Orders API (steps 2 and 4) ---------------------------------------------------------------

def error_code(error):
    """The "error" string of an HTTP error's JSON body, or ""."""
    try:
        body = json.loads(error.read().decode("utf-8"))
    except (OSError, http.client.HTTPException, UnicodeDecodeError, ValueError):
        return ""
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        return body["error"]
    return ""


class Call:
    """What one tool call is about: its words for the customer, and the argument that carries
    the id (the field a 404 names)."""

    def __init__(self, id_field, thing, is_refund=False):
        self.id_field = id_field
        self.thing = thing  # e.g. "order ORD-8821"
        self.is_refund = is_refund

    def transient_message(self, why):
        if self.is_refund:
            # A POST that timed out or failed may have been applied: promise nothing.
            return ("I couldn't confirm whether the refund went through. It will be checked "
                    "before anything is sent again.")
        if why == "busy":
            return "The order system is busy right now. Trying again in a moment should work."
        if why == "slow":
            return "The order system is slow to respond. Trying again soon should work."
        return ("The order system is having a temporary problem. Trying again in a moment "
                "should work.")


def http_failure(call, what, error):
    status = error.code
    code = error_code(error)
    detail = f"{what}: {status}" + (f" {code}" if code else "")
    if status in (401, 403):
        if call.is_refund:
            message = ("I can't issue refunds right now, so no refund was made. A colleague with "
                       "access will take this over.")
        else:
            message = "I can't open order records right now. A colleague with access will help."
        return ToolFailure("permission", message, detail)
    if status == 404:
        return ToolFailure(
            "validation", f"I couldn't find {call.thing}. Could you check the number?",
            detail, field=call.id_field)
    if status == 422 and call.is_refund:
        return ToolFailure(
            "business",
            "Refunds above $500 need a manager's approval. I can ask a manager to approve it, "
            "or refund $500 or less now.", detail)
    if status == 429:
        header = error.headers.get("Retry-After") if error.headers is not None else None
        if header is not None:
            detail += f", Retry-After: {header}"
        if call.is_refund:
            # A rate-limited request was refused before it was processed: nothing was applied.
            message = "The refund system is busy and made no refund. It can be tried again soon."
        else:
            message = call.transient_message("busy")
        return ToolFailure("transient", message, detail)
    if status == 408 or 500 <= status <= 599:
        return ToolFailure("transient", call.transient_message("unavailable"), detail)
    # Another 4xx: the API refused this request as it stands; the same call will fail again.
    return ToolFailure(
        "validation", f"The order system did not accept the request for {call.thing}.",
        detail, field=call.id_field)


# Talk to the Orders API directly: no proxy from the environment or the system settings (macOS
# reads its system proxy even with a clean environment, and 127.0.0.1 is not always exempt).
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def api_request(call, method, path, body=None):
    """Send one request: exactly one, with the timeout, never retried. Returns the JSON body."""
    what = f"{method} {path}"
    headers = {"Authorization": "Bearer " + API_TOKEN, "Accept": "application/json"}
    data = None
    if body is not None:
        data = json.dumps(body).encode("utf-8")
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(API_URL + path, data=data, headers=headers, method=method)
    try:
        with OPENER.open(request, timeout=TIMEOUT_SECONDS) as response:
            raw = response.read()
    except urllib.error.HTTPError as error:
        raise http_failure(call, what, error)
    except urllib.error.URLError as error:  # refused, unreachable, timed out while connecting
        raise ToolFailure(
            "transient", call.transient_message("unavailable"), f"{what} failed: {error.reason}")
    except (TimeoutError, socket.timeout):
        raise ToolFailure(
            "transient", call.transient_message("slow"),
            f"{what} timed out after {TIMEOUT_SECONDS:g} s")
    except (ConnectionError, http.client.HTTPException) as error:  # reset, dropped, cut short
        raise ToolFailure(
            "transient", call.transient_message("unavailable"),
            f"{what}: connection dropped ({type(error).__name__})")
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ToolFailure(
            "transient", call.transient_message("unavailable"), f"{what}: answer is not JSON")


def quoted(value):
    return urllib.parse.quote(value, safe="")


# -- the tools ------------------------------------------------------------------------------------

# The arguments are declared with their types but not listed as "required": a schema check before
# the handler would answer a missing argument with untyped text. The handlers check them.
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
    log("lookup_order", json.dumps(arguments))
    try:
        order_id = require_order_id(arguments)
        call = Call("order_id", f"order {order_id}")
        order = api_request(call, "GET", "/orders/" + quoted(order_id))
    except ToolFailure as failure:
        return typed_error(failure, "lookup_order", arguments, ["order_id"])
    return ok({"order": order})


@server.tool("search_orders", "List every order of one customer, all pages.",
             SEARCH_ORDERS_SCHEMA)
def search_orders(arguments):
    log("search_orders", json.dumps(arguments))
    orders = []
    pages_fetched = 0
    try:
        customer_id = require_customer_id(arguments)
        call = Call("customer_id", f"customer {customer_id}")
        page = 1
        seen = set()
        while page is not None:
            if str(page) in seen or len(seen) >= MAX_PAGES:
                raise ToolFailure(
                    "transient", call.transient_message("unavailable"),
                    f"the pages never reach a last page (next_page {page!r} again)")
            seen.add(str(page))
            path = f"/customers/{quoted(customer_id)}/orders?page={quoted(str(page))}"
            body = api_request(call, "GET", path)
            if not isinstance(body, dict) or not isinstance(body.get("orders", []), list):
                raise ToolFailure(
                    "transient", call.transient_message("unavailable"),
                    f"GET {path} answered 200 without an orders list")
            orders.extend(body.get("orders", []))
            pages_fetched += 1
            page = body.get("next_page")
    except ToolFailure as failure:
        # A failure after some pages arrived keeps them, and is still an error: never pass a
        # partial list off as the whole history. Nothing fetched is null, not [].
        if pages_fetched > 0:
            failure.partial_results = orders
            failure.detail = (f"{failure.detail}; {pages_fetched} page(s) with {len(orders)} "
                              "order(s) fetched before")
        return typed_error(failure, "search_orders", arguments, ["customer_id"])
    # No orders at all is a complete answer, and a success.
    return ok({"orders": orders})


@server.tool("process_refund",
             "Refund an amount of one order. Refunds above 500 need a manager's approval.",
             PROCESS_REFUND_SCHEMA)
def process_refund(arguments):
    log("process_refund", json.dumps(arguments))
    try:
        # Validation first, order_id before amount: -20 is validation, not business.
        order_id = require_order_id(arguments)
        amount = require_amount(arguments)
        if amount > REFUND_LIMIT:
            # The policy, checked here without a request; the API's 422 says the same.
            raise ToolFailure(
                "business",
                "Refunds above $500 need a manager's approval. I can ask a manager to approve "
                "it, or refund $500 or less now.",
                f"amount above the refund limit of {REFUND_LIMIT}; no request sent")
        call = Call("order_id", f"order {order_id}", is_refund=True)
        # One POST, never repeated here: a repeat could pay the refund twice.
        refund = api_request(call, "POST", "/refunds", {"order_id": order_id, "amount": amount})
    except ToolFailure as failure:
        if failure.category == "validation":
            return typed_error(failure, "process_refund", arguments, ["order_id", "amount"])
        # FAULT: past validation, attemptedQuery records the order id only, not the amount
        return typed_error(failure, "process_refund", {"order_id": order_id}, ["order_id"])
    return ok({"refund": refund})


if __name__ == "__main__":
    server.run()

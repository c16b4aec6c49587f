"""The orders MCP server: a reference solution for mcp-structured-errors.

Every failure is a tool result with isError true and the typed payload
{isError, errorCategory, isRetryable, retryAfterSeconds, explanation}; the client decides from
the flags. One HTTP request per lookup or page, never a retry, logs on stderr only.
"""

import email.utils
import http.client
import json
import os
import re
import socket
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime, timezone

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
    "auth": False,
    "rate_limit": True,
    "not_found": False,
    "validation": False,
    "transient": True,
}

ORDER_ID = re.compile(r"ORD-[0-9]{4,}")
CUSTOMER_ID = re.compile(r"C-[0-9]+")

MAX_PAGES = 1000  # a guard against a service whose next_page never ends


class ToolFailure(Exception):
    """A failure with its category, raised below and turned into the typed payload."""

    def __init__(self, category, explanation, retry_after_seconds=None):
        super().__init__(explanation)
        self.category = category
        self.explanation = explanation
        self.retry_after_seconds = retry_after_seconds


def typed_error(failure):
    payload = {
        "isError": True,
        "errorCategory": failure.category,
        "isRetryable": RETRYABLE[failure.category],
        "retryAfterSeconds": failure.retry_after_seconds,
        "explanation": failure.explanation,
    }
    log("error:", json.dumps(payload))
    return tool_error(payload)


# -- validation (step 1) --------------------------------------------------------------------------

def require(arguments, name, pattern, shape):
    value = arguments.get(name)
    if name not in arguments or value is None:
        raise ToolFailure("validation", f"{name} is missing; expected {shape}.")
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise ToolFailure(
            "validation", f"{name} {json.dumps(value)} is malformed; expected {shape}.")
    return value


# -- Retry-After (step 3) -------------------------------------------------------------------------

def retry_after_seconds(value):
    """Retry-After (RFC 9110 §10.2.3) as whole seconds >= 0, or None when absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    if re.fullmatch(r"[0-9]+", value):
        return int(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:  # "-0000" parses as naive; HTTP-dates are always UTC
        when = when.replace(tzinfo=timezone.utc)
    seconds = (when - datetime.now(timezone.utc)).total_seconds()
    return max(0, round(seconds))


# -- the Orders API (step 2) ----------------------------------------------------------------------

def describe_body(raw):
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return ""
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        return ": " + body["error"]
    return ""


def http_failure(what, error):
    status = error.code
    try:
        detail = describe_body(error.read())
    except (OSError, http.client.HTTPException):
        detail = ""
    if status in (401, 403):
        return ToolFailure(
            "auth",
            f"{status} from {what}{detail}; the API token was refused, a person must renew it.")
    if status == 404:
        return ToolFailure("not_found", f"404 from {what}{detail}; no such record.")
    if status == 429:
        header = error.headers.get("Retry-After") if error.headers is not None else None
        seconds = retry_after_seconds(header)
        hint = f"Retry-After: {header}" if header is not None else "no Retry-After"
        return ToolFailure(
            "rate_limit", f"429 from {what}{detail}, {hint}; wait before trying again.", seconds)
    if status == 408 or 500 <= status <= 599:
        # A 503 may state how long the outage lasts (RFC 9110 §10.2.3): carry that wait too.
        header = error.headers.get("Retry-After") if error.headers is not None else None
        return ToolFailure(
            "transient", f"{status} from {what}{detail}; the service is temporarily unavailable.",
            retry_after_seconds(header))
    return ToolFailure("validation", f"unexpected {status} from {what}{detail}.")


# Talk to the Orders API directly: no proxy from the environment or the system settings (macOS
# reads its system proxy even with a clean environment, and 127.0.0.1 is not always exempt).
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def api_get(path):
    """GET one resource: exactly one request, with the timeout, never retried."""
    what = "GET " + path
    request = urllib.request.Request(
        API_URL + path,
        headers={"Authorization": "Bearer " + API_TOKEN, "Accept": "application/json"},
    )
    try:
        with OPENER.open(request, timeout=TIMEOUT_SECONDS) as response:
            raw = response.read()
    except urllib.error.HTTPError as error:
        raise http_failure(what, error)
    except urllib.error.URLError as error:  # refused, unreachable, timed out while connecting
        raise ToolFailure(
            "transient", f"{what} failed: {error.reason}; the service is temporarily unreachable.")
    except (TimeoutError, socket.timeout):
        raise ToolFailure(
            "transient",
            f"{what} timed out after {TIMEOUT_SECONDS:g} s; the service is temporarily slow.")
    except (ConnectionError, http.client.HTTPException) as error:  # reset, dropped, cut short
        raise ToolFailure(
            "transient",
            f"{what} failed: the connection was dropped ({type(error).__name__}); try again.")
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ToolFailure("transient", f"{what} answered 200 with a body that is not JSON.")


def quoted(value):
    return urllib.parse.quote(value, safe="")


# -- the tools ------------------------------------------------------------------------------------

# The arguments are declared with their types but not listed as "required": a schema check before
# the handler would answer a missing argument with untyped text. The handlers check it themselves.
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
    log("lookup_order", json.dumps(arguments))
    try:
        order_id = require(
            arguments, "order_id", ORDER_ID, "ORD- and four or more digits, e.g. ORD-8821")
        order = api_get("/orders/" + quoted(order_id))
    except ToolFailure as failure:
        return typed_error(failure)
    return ok({"order": order})


@server.tool("search_orders", "List every order of one customer, all pages.", SEARCH_ORDERS_SCHEMA)
def search_orders(arguments):
    log("search_orders", json.dumps(arguments))
    try:
        customer_id = require(arguments, "customer_id", CUSTOMER_ID, "C- and digits, e.g. C-1042")
        orders = []
        page = 1
        seen = set()
        while page is not None:
            if str(page) in seen or len(seen) >= MAX_PAGES:
                raise ToolFailure(
                    "transient", f"the orders of {customer_id} never reach a last page.")
            seen.add(str(page))
            path = f"/customers/{quoted(customer_id)}/orders?page={quoted(str(page))}"
            body = api_get(path)
            if not isinstance(body, dict) or not isinstance(body.get("orders", []), list):
                raise ToolFailure("transient", f"GET {path} answered 200 without an orders list.")
            orders.extend(body.get("orders", []))
            page = body.get("next_page")
    except ToolFailure as failure:
        return typed_error(failure)
    return ok({"orders": orders})


if __name__ == "__main__":
    server.run()

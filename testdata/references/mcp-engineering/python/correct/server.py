"""The orders MCP server: a reference solution for mcp-engineering.

Every failure of lookup_order is a tool result with isError true and the typed payload
{isError, errorCategory, isRetryable, retryAfterSeconds}, in the four categories auth,
rate_limit, transient and fatal; the client decides from the flags. Credentials come only from
the environment that .mcp.json passes by ${VAR} reference. One HTTP request per call, never a
retry, logs on stderr only.
"""

import email.utils
import http.client
import json
import os
import re
import socket
import sys
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
    "transient": True,
    "fatal": False,
}

ORDER_ID = re.compile(r"ORD-[0-9]{4,}")


class ToolFailure(Exception):
    """A failure with its category, raised below and turned into the typed payload.

    detail is for the log (stderr) only: the contract carries flags, not prose.
    """

    def __init__(self, category, detail, retry_after_seconds=None):
        super().__init__(detail)
        self.category = category
        self.detail = detail
        self.retry_after_seconds = retry_after_seconds


def typed_error(failure):
    payload = {
        "isError": True,
        "errorCategory": failure.category,
        "isRetryable": RETRYABLE[failure.category],
        "retryAfterSeconds": failure.retry_after_seconds,
    }
    log(f"error: {failure.detail} -> {json.dumps(payload)}")
    return tool_error(payload)


# -- configuration (step 2) -----------------------------------------------------------------------

def check_configuration():
    """Fail closed: with no URL or no token there is nothing sensible to send."""
    missing = [name for name, value in
               (("ORDERS_API_URL", API_URL), ("ORDERS_API_TOKEN", API_TOKEN)) if not value]
    if missing:
        log(f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} empty: pass "
            "credentials from .mcp.json as ${VAR} references (TASK.md, step 2). Exiting.")
        sys.exit(1)
    if not API_URL.startswith(("http://", "https://")):
        # A bare "$ORDERS_API_URL" in .mcp.json is not expanded and arrives as text.
        log(f"ORDERS_API_URL is {API_URL!r}, not an http(s) URL; every lookup will fail as fatal. "
            "Check .mcp.json: use ${ORDERS_API_URL}, with braces.")


# -- validation (step 3) --------------------------------------------------------------------------

def require_order_id(arguments):
    value = arguments.get("order_id")
    if value is None:
        raise ToolFailure("fatal", "order_id is missing; no request sent")
    if not isinstance(value, str) or not ORDER_ID.fullmatch(value):
        raise ToolFailure("fatal", f"order_id {json.dumps(value)} is malformed; no request sent")
    return value


# -- Retry-After (step 4) -------------------------------------------------------------------------

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


# -- the Orders API (step 3) ----------------------------------------------------------------------

def error_code(error):
    """The "error" string of an HTTP error's JSON body, or ""."""
    try:
        body = json.loads(error.read().decode("utf-8"))
    except (OSError, http.client.HTTPException, UnicodeDecodeError, ValueError):
        return ""
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        return body["error"]
    return ""


def http_failure(what, error):
    status = error.code
    code = error_code(error)
    detail = f"{what}: {status}" + (f" {code}" if code else "")
    if status in (401, 403):
        return ToolFailure("auth", detail + "; the credential must be renewed")
    if status == 429:
        header = error.headers.get("Retry-After") if error.headers is not None else None
        seconds = retry_after_seconds(header)
        hint = f"Retry-After: {header}" if header is not None else "no Retry-After"
        return ToolFailure("rate_limit", f"{detail}, {hint}", seconds)
    if status == 408 or 500 <= status <= 599:
        # A 503 may state how long the outage lasts (RFC 9110 §10.2.3): carry that wait too.
        header = error.headers.get("Retry-After") if error.headers is not None else None
        return ToolFailure("transient", detail, retry_after_seconds(header))
    # 404 and any other 4xx: the same call will get the same answer.
    return ToolFailure("fatal", detail)


# Talk to the Orders API directly: no proxy from the environment or the system settings (macOS
# reads its system proxy even with a clean environment, and 127.0.0.1 is not always exempt).
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def api_get(path):
    """GET one resource: exactly one request, with the timeout, never retried."""
    what = "GET " + path
    if not API_URL.startswith(("http://", "https://")):
        raise ToolFailure("fatal", f"ORDERS_API_URL {API_URL!r} is not an http(s) URL")
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
        raise ToolFailure("transient", f"{what} failed: {error.reason}")
    except (TimeoutError, socket.timeout):
        raise ToolFailure("transient", f"{what} timed out after {TIMEOUT_SECONDS:g} s")
    except (ConnectionError, http.client.HTTPException) as error:  # reset, dropped, cut short
        raise ToolFailure("transient", f"{what}: connection dropped ({type(error).__name__})")
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ToolFailure("transient", f"{what} answered 200 with a body that is not JSON")


# -- the tool -------------------------------------------------------------------------------------

# order_id is declared with its type but not listed as "required": a schema check before the
# handler would answer a missing argument with untyped text. The handler checks it itself.
LOOKUP_ORDER_SCHEMA = {
    "type": "object",
    "properties": {
        "order_id": {"type": "string", "description": "The order id, e.g. ORD-8821."},
    },
}


@server.tool("lookup_order", "Look up one order by its id.", LOOKUP_ORDER_SCHEMA)
def lookup_order(arguments):
    log("lookup_order", json.dumps(arguments))
    try:
        order_id = require_order_id(arguments)
        order = api_get("/orders/" + urllib.parse.quote(order_id, safe=""))
    except ToolFailure as failure:
        return typed_error(failure)
    return ok({"order": order})


if __name__ == "__main__":
    check_configuration()
    server.run()

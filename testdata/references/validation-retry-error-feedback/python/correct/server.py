"""The orders MCP server: a reference solution for validation-retry-error-feedback.

create_return checks every argument against its input schema before it sends anything, and
answers all the violations at once as a tool result with isError true and the typed payload
{isError, errorCategory, isRetryable, message, violations}: each violation names the field, the
JSON Schema keyword that failed (constraint), what would pass with a valid example (expected) and
the value sent (received, redacted when it looks like a secret). A valid call is one POST /returns;
the failures a model cannot repair by changing its arguments are not_found, business and auth,
and transient (5xx, a timeout, a dropped connection) is the only retryable one. Logs on stderr.
"""

import http.client
import json
import os
import re
import socket
import urllib.error
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

# isRetryable: the same call, sent again unchanged, may succeed. A validation error is not
# retryable; that the model can repair it is what errorCategory and violations say.
RETRYABLE = {
    "validation": False,
    "not_found": False,
    "business": False,
    "auth": False,
    "transient": True,
}

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


class ToolFailure(Exception):
    """A failure with its category, raised below and turned into the typed payload.

    message is for the model (and whoever it answers); detail is for the log only.
    """

    def __init__(self, category, message, detail=None, violations=None):
        super().__init__(message)
        self.category = category
        self.message = message
        self.detail = detail
        self.violations = violations or []


def typed_error(failure):
    payload = {
        "isError": True,
        "errorCategory": failure.category,
        "isRetryable": RETRYABLE[failure.category],
        "message": failure.message,
        "violations": failure.violations,
    }
    log("error:", json.dumps(payload), "|", failure.detail or "")
    return tool_error(payload)


# -- secrets (step 4) -----------------------------------------------------------------------------

SECRET_PREFIXES = ("sk_", "sk-", "ghp_", "gho_", "github_pat_", "xoxb-", "xoxp-", "AKIA")

# Unicode's White_Space characters (Go's unicode.IsSpace): one definition in every language.
WHITE_SPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000")

REDACTED = "[redacted: looks like a secret]"


def is_secret_like(value):
    """A string a server must never echo: a known key prefix, or 32+ characters without spaces."""
    if not isinstance(value, str):
        return False
    if value.startswith(SECRET_PREFIXES):
        return True
    return len(value) >= 32 and not any(c in WHITE_SPACE for c in value)


def redact(value):
    """value with every secret-like string in it (object keys included) replaced."""
    if is_secret_like(value):
        return REDACTED
    if isinstance(value, dict):
        return {redact(k): redact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v) for v in value]
    return value


# -- validation against the input schema (steps 2 and 3) ------------------------------------------

def json_pattern(pattern):
    """pattern for Python's re: JSON Schema's $ (ECMA 262) is the end of the string, Python's
    also matches before a final newline, so a trailing $ becomes \\Z."""
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        return re.compile(pattern[:-1] + r"\Z")
    return re.compile(pattern)


def is_email(value):
    """One @, a non-empty name before it, a domain with a dot after it, no white space."""
    if any(c in WHITE_SPACE for c in value) or value.count("@") != 1:
        return False
    local, domain = value.split("@")
    return bool(local) and "." in domain


FORMATS = {"email": is_email}


def has_type(value, kind):
    # bool is a subclass of int in Python, but JSON true is not a number.
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if kind == "integer":  # JSON Schema: a number with no fractional part (3.0 counts)
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if kind == "number":
        return isinstance(value, (int, float))
    return True


def failed_keyword(schema, value):
    """The first keyword of a property's schema that value fails, or None when it passes."""
    if "type" in schema and not has_type(value, schema["type"]):
        return "type"
    if "enum" in schema and value not in schema["enum"]:
        return "enum"
    if isinstance(value, str):
        if "pattern" in schema and not json_pattern(schema["pattern"]).search(value):
            return "pattern"
        if "format" in schema and schema["format"] in FORMATS:
            if not FORMATS[schema["format"]](value):
                return "format"
        if "minLength" in schema and len(value) < schema["minLength"]:
            return "minLength"
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            return "maxLength"
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return "minimum"
        if "maximum" in schema and value > schema["maximum"]:
            return "maximum"
    return None


ARTICLES = {"string": "a string", "integer": "an integer", "number": "a number",
            "boolean": "true or false"}


def describe(schema):
    """What passes a property's schema, in words a model can act on, with a valid example:
    'a string matching ^ORD-[0-9]{4,8}$, for example "ORD-8821" or "ORD-104427"'."""
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(v) for v in schema["enum"])
    if schema.get("format") == "email":
        text = "an email address: one @, a name before it, a domain with a dot after it, no spaces"
    else:
        text = ARTICLES.get(schema.get("type"), "a value")
    if "pattern" in schema:
        text += " matching " + schema["pattern"]
    if "minimum" in schema and "maximum" in schema:
        text += f" from {schema['minimum']} to {schema['maximum']}"
    elif "minimum" in schema:
        text += f" of at least {schema['minimum']}"
    elif "maximum" in schema:
        text += f" of at most {schema['maximum']}"
    if "minLength" in schema and "maxLength" in schema:
        text += f" of {schema['minLength']} to {schema['maxLength']} characters"
    elif "minLength" in schema:
        text += f" of at least {schema['minLength']} characters"
    elif "maxLength" in schema:
        text += f" of at most {schema['maxLength']} characters"
    if schema.get("examples"):
        text += ", for example " + " or ".join(json.dumps(v) for v in schema["examples"])
    return text


def violations_of(schema, arguments):
    """Every violation of arguments against an object schema, one per broken argument: declared
    arguments in the schema's order, then unknown ones by name."""
    properties = schema["properties"]
    found = []
    for name, prop in properties.items():
        if name not in arguments:
            if name in schema.get("required", []):
                found.append({"field": name, "constraint": "required",
                              "expected": f"{name} is required: {describe(prop)}"})
            continue
        keyword = failed_keyword(prop, arguments[name])
        if keyword is not None:
            found.append({"field": name, "constraint": keyword, "expected": describe(prop),
                          "received": redact(arguments[name])})
    if schema.get("additionalProperties") is False:
        allowed = ", ".join(properties)
        for name in sorted(n for n in arguments if n not in properties):
            found.append({"field": redact(name), "constraint": "additionalProperties",
                          "expected": f"leave this argument out; the arguments are {allowed}",
                          "received": redact(arguments[name])})
    return found


def validation_failure(violations):
    listed = "; ".join(f"{v['field']} ({v['constraint']})" for v in violations)
    noun = "argument needs" if len(violations) == 1 else "arguments need"
    return ToolFailure(
        "validation",
        f"No return was created: {len(violations)} {noun} fixing: {listed}. Correct each one as "
        "its violation's expected says, then call create_return again.",
        "invalid arguments, no request sent", violations)


# -- the Orders API (steps 1 and 5) ---------------------------------------------------------------

def error_code(raw):
    """The "error" string of an HTTP error's JSON body, or ""."""
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return ""
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        return body["error"]
    return ""


TRANSIENT_MESSAGE = ("The returns service is having a temporary problem and no return was "
                     "confirmed. The same call may succeed in a moment.")


def http_failure(order_id, status, raw):
    detail = f"POST /returns: {status} {error_code(raw)}".rstrip()
    if status in (401, 403):
        return ToolFailure(
            "auth", "The returns service refused this server's credentials, so no return was "
            "created. A person has to renew the access; changing the arguments will not help.",
            detail)
    if status == 404:
        return ToolFailure(
            "not_found", f"There is no order {order_id}, so no return was created. Ask the "
            "customer for the right order number; the same call will fail again.", detail)
    if status == 408 or status == 429 or 500 <= status <= 599:
        return ToolFailure("transient", TRANSIENT_MESSAGE, detail)
    if error_code(raw) == "return_window_closed":
        message = (f"The return window of order {order_id} has closed, so no return was created. "
                   "This is the shop's rule: offer the customer another option.")
    else:
        message = (f"The returns service refused a return for order {order_id} under its rules, "
                   "so none was created. Sending the same call again will not change that.")
    # 409, 422 and any other refusal: a rule of the business, not something to retry or repair.
    return ToolFailure("business", message, detail)


# Talk to the Orders API directly: no proxy from the environment or the system settings (macOS
# reads its system proxy even with a clean environment, and 127.0.0.1 is not always exempt).
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def post_return(arguments):
    """POST /returns with the arguments as its body: exactly one request, with the timeout, never
    retried. Returns the created return."""
    request = urllib.request.Request(
        API_URL + "/returns", data=json.dumps(arguments).encode("utf-8"), method="POST",
        headers={"Authorization": "Bearer " + API_TOKEN, "Accept": "application/json",
                 "Content-Type": "application/json"})
    order_id = arguments.get("order_id")
    try:
        with OPENER.open(request, timeout=TIMEOUT_SECONDS) as response:
            raw = response.read()
    except urllib.error.HTTPError as error:
        try:
            body = error.read()
        except (OSError, http.client.HTTPException):
            body = b""
        raise http_failure(order_id, error.code, body)
    except urllib.error.URLError as error:  # refused, unreachable, timed out while connecting
        raise ToolFailure("transient", TRANSIENT_MESSAGE, f"POST /returns failed: {error.reason}")
    except (TimeoutError, socket.timeout):
        raise ToolFailure(
            "transient", TRANSIENT_MESSAGE, f"POST /returns timed out after {TIMEOUT_SECONDS:g} s")
    except (ConnectionError, http.client.HTTPException) as error:  # reset, dropped, cut short
        raise ToolFailure(
            "transient", TRANSIENT_MESSAGE, f"POST /returns: connection dropped ({error!r})")
    try:
        created = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        created = None
    if not isinstance(created, dict):
        raise ToolFailure("transient", TRANSIENT_MESSAGE, "POST /returns: answer is not an object")
    return created


# -- the tool -------------------------------------------------------------------------------------

@server.tool("create_return",
             "Open a return for items of one order and email the customer a return label.",
             CREATE_RETURN_SCHEMA)
def create_return(arguments):
    log("create_return", json.dumps(redact(arguments)))
    try:
        # Every violation at once, and nothing sent while there is one.
        violations = violations_of(CREATE_RETURN_SCHEMA, arguments)
        if violations:
            raise validation_failure(violations)
        created = post_return(arguments)
    except ToolFailure as failure:
        return typed_error(failure)
    return ok({"return": created})


if __name__ == "__main__":
    server.run()

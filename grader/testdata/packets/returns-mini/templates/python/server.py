"""A returns server for the grader's tests: create_return, its feedback, and faults by FAULT."""
import json
import os
import re
import sys
import urllib.error
import urllib.request

FAULT = ""  # the tests write: first-only, vague, echo, backend, invent, range, stringify, no-required

SCHEMA = {
    "type": "object",
    "properties": {
        "order_id": {"type": "string", "pattern": "^ORD-[0-9]{4,8}$", "examples": ["ORD-8821", "ORD-104427"]},
        "quantity": {"type": "integer", "minimum": 1, "maximum": 10},
        "reason": {"type": "string", "enum": ["damaged", "wrong_item", "not_needed", "arrived_late"]},
        "email": {"type": "string", "format": "email", "examples": ["ana.lopez@example.com"]},
        "note": {"type": "string", "maxLength": 200},
    },
    "required": ["order_id", "quantity", "reason", "email"],
    "additionalProperties": False,
}
PREFIXES = ("sk_", "sk-", "ghp_", "gho_", "github_pat_", "xoxb-", "xoxp-", "AKIA")


def secret_like(v):
    return isinstance(v, str) and (v.startswith(PREFIXES) or (len(v) >= 32 and not any(c.isspace() for c in v)))


def email_ok(s):
    if any(c.isspace() for c in s) or s.count("@") != 1:
        return False
    local, domain = s.split("@")
    return bool(local) and "." in domain and not domain.startswith(".") and not domain.endswith(".")


def check(name, v):
    p = SCHEMA["properties"][name]
    t = p["type"]
    if t == "string" and not isinstance(v, str) or t == "integer" and (isinstance(v, bool) or not isinstance(v, (int, float)) or v != int(v)):
        return "type", "a " + t
    if "enum" in p and v not in p["enum"]:
        return "enum", "one of: " + ", ".join(p["enum"])
    if "minimum" in p and v < p["minimum"]:
        return "minimum", "at least %d" % p["minimum"]
    if "maximum" in p and v > p["maximum"]:
        return "maximum", "at most %d" % p["maximum"]
    if "maxLength" in p and len(v) > p["maxLength"]:
        return "maxLength", "at most %d characters" % p["maxLength"]
    if "pattern" in p and not re.search(p["pattern"], v, re.ASCII):
        return "pattern", "an order id like " + p["examples"][0]
    if p.get("format") == "email" and not email_ok(v):
        return "format", "an email address like " + p["examples"][0]
    return None


def violations(args):
    out = []
    for name in SCHEMA["required"]:
        if name not in args:
            out.append({"field": name, "constraint": "required", "expected": "a value for " + name, "received": None})
    for name, v in args.items():
        if name not in SCHEMA["properties"]:
            out.append({"field": name, "constraint": "additionalProperties",
                        "expected": "only these arguments: " + ", ".join(SCHEMA["properties"]), "received": v})
            continue
        bad = check(name, v)
        if bad:
            received = v
            if secret_like(v) and FAULT != "echo":
                received = "[redacted]"
            out.append({"field": "/" + name, "constraint": bad[0], "expected": bad[1], "received": received})
    if FAULT == "range":
        for x in out:
            if x["constraint"] in ("minimum", "maximum"):
                x["constraint"] = "range"
    if FAULT == "stringify":
        for x in out:
            if x["received"] is not None:
                x["received"] = str(x["received"])
    if FAULT == "vague":
        for x in out:
            x["expected"] = "invalid input"
    if FAULT == "invent" and out:
        valid = [n for n in args if n in SCHEMA["properties"] and n not in [x["field"].lstrip("/") for x in out]]
        if valid:
            out.append({"field": valid[0], "constraint": "pattern", "expected": "something else", "received": args[valid[0]]})
    if FAULT == "first-only":
        out = out[:1]
    return out


def error(category, retryable, message, found=None):
    p = {"isError": True, "errorCategory": category, "isRetryable": retryable, "message": message}
    if found is not None:
        p["violations"] = found
    return p


def post(args):
    req = urllib.request.Request(os.environ["ORDERS_API_URL"] + "/returns", data=json.dumps(args).encode(), method="POST",
                                 headers={"Authorization": "Bearer " + os.environ["ORDERS_API_TOKEN"], "Content-Type": "application/json"})
    return urllib.request.urlopen(req, timeout=float(os.environ["ORDERS_API_TIMEOUT_SECONDS"]))


def create_return(args):
    found = violations(args)
    if found:
        if FAULT == "backend":
            try:
                post(args).read()
            except Exception:
                pass
        return error("validation", False, "Some arguments are not valid; see violations.", found)
    try:
        with post(args) as r:
            return {"isError": False, "return": json.loads(r.read())}
    except urllib.error.HTTPError as e:
        cat = {404: "not_found", 409: "business", 401: "auth", 403: "auth"}.get(e.code, "transient")
        return error(cat, cat == "transient", "The return could not be opened.")
    except Exception:
        return error("transient", True, "The returns service did not answer in time.")


def reply(msg_id, result=None, err=None):
    m = {"jsonrpc": "2.0", "id": msg_id}
    if err:
        m["error"] = err
    else:
        m["result"] = result
    sys.stdout.write(json.dumps(m) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    method, msg_id = msg.get("method"), msg.get("id")
    if msg_id is None:
        continue
    if method == "initialize":
        reply(msg_id, {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                       "serverInfo": {"name": "orders", "version": "1"}})
    elif method == "tools/list":
        listed = {k: v for k, v in SCHEMA.items() if FAULT != "no-required" or k != "required"}
        reply(msg_id, {"tools": [{"name": "create_return", "description": "Open a return.", "inputSchema": listed}]})
    elif method == "tools/call" and msg["params"]["name"] == "create_return":
        p = create_return(msg["params"].get("arguments") or {})
        reply(msg_id, {"content": [{"type": "text", "text": json.dumps(p)}], "structuredContent": p, "isError": p["isError"]})
    elif method == "tools/call":
        reply(msg_id, err={"code": -32602, "message": "unknown tool"})
    else:
        reply(msg_id, {})

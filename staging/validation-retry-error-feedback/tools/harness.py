"""A hand harness for the create_return servers (not shipped; the real grader comes later).

    python3 harness.py WORKSPACE LANG      # LANG: python, node or go

WORKSPACE holds a built workspace (server file plus the server shim; for Go the binary
.kata/bin/server). The harness runs a fake Orders API on 127.0.0.1, starts the server over stdio,
and checks the payloads the issue-28 design asks for. It prints one line per check that fails and
exits 1 when any did.
"""

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOKEN = "0123456789abcdef0123456789abcdef"
SCHEMA = {
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
ENUM = SCHEMA["properties"]["reason"]["enum"]

# -- the fake Orders API --------------------------------------------------------------------------

BEHAVIOUR = {}  # order_id -> "ok" | int status | "slow" | "drop"
REQUESTS = []  # (method, path, body) of every request with the right token
LOCK = threading.Lock()
counter = [1000]


def new_order_id(kind):
    with LOCK:
        counter[0] += 1
        order_id = f"ORD-{counter[0]}"
    BEHAVIOUR[order_id] = kind
    return order_id


class API(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body):
        raw = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self):
        self.answer(404, {"error": "no such endpoint"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self.headers.get("Authorization") != "Bearer " + TOKEN:
            self.answer(401, {"error": "token_expired", "detail": "missing or wrong bearer token"})
            return
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        with LOCK:
            REQUESTS.append(("POST", self.path, body))
        if self.path != "/returns" or not isinstance(body, dict):
            self.answer(404, {"error": "no such endpoint"})
            return
        kind = BEHAVIOUR.get(body.get("order_id"))
        if kind == "ok":
            created = {"return_id": "RT-%05d" % (len(REQUESTS) % 100000), "status": "open"}
            for key in ("order_id", "quantity", "reason", "email", "note"):
                if key in body:
                    created[key] = body[key]
            self.answer(201, created)
        elif kind == "slow":
            time.sleep(3)
            self.answer(201, {"return_id": "RT-00000", "status": "open"})
        elif kind == "drop":
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
        elif isinstance(kind, int):
            errors = {409: "return_window_closed", 404: "not_found", 401: "token_expired",
                      403: "forbidden", 422: "unprocessable"}
            self.answer(kind, {"error": errors.get(kind, "unavailable")})
        else:
            self.answer(404, {"error": "not_found"})


def start_api():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), API)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


# -- the MCP session ------------------------------------------------------------------------------

class Session:
    def __init__(self, command, cwd, api_url):
        env = {"PATH": os.environ["PATH"], "ORDERS_API_URL": api_url,
               "ORDERS_API_TOKEN": TOKEN, "ORDERS_API_TIMEOUT_SECONDS": "0.5"}
        self.proc = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=open(os.path.join(cwd, "stderr.log"), "ab"))
        self.next_id = 0
        self.stray = []

    def request(self, method, params, deadline=8):
        self.next_id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                           "params": params})
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()
        while True:
            raw = self.proc.stdout.readline()
            if not raw:
                raise RuntimeError("server closed stdout")
            try:
                message = json.loads(raw)
            except ValueError:
                self.stray.append(raw)
                continue
            if message.get("id") == self.next_id:
                return message, raw.decode()

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=5)


FAILS = []


def check(ok, what):
    if not ok:
        FAILS.append(what)
        print("FAIL:", what)


def call(session, arguments):
    before = len(REQUESTS)
    message, raw = session.request("tools/call", {"name": "create_return", "arguments": arguments})
    sent = REQUESTS[before:]
    return message, raw, sent


def payload_of(message, label):
    result = message.get("result")
    check(result is not None, f"{label}: answered with a JSON-RPC error {message.get('error')}")
    if result is None:
        return None, None
    sc = result.get("structuredContent")
    check(isinstance(sc, dict), f"{label}: no structuredContent object")
    text = result["content"][0]["text"]
    try:
        mirrored = json.loads(text)
    except ValueError:
        mirrored = None
    check(mirrored == sc, f"{label}: text mirror differs: {text[:200]}")
    check(result.get("isError", False) == (sc or {}).get("isError", False),
          f"{label}: isError disagrees")
    return result, sc


def valid_arguments(order_id, note=None):
    args = {"order_id": order_id, "quantity": 2, "reason": "damaged",
            "email": "ana.lopez@example.com"}
    if note is not None:
        args["note"] = note
    return args


TOKEN_SPLIT = re.compile(r"[\s\"',]+")


def passes_property(name, token):
    if name == "order_id":
        return re.fullmatch(r"ORD-[0-9]{4,8}", token) is not None
    if name == "email":
        return (token.count("@") == 1 and token.split("@")[0] != "" and "." in token.split("@")[1]
                and not re.search(r"\s", token))
    return False


def check_violation(label, v, field, constraint, received, secret=False):
    check(v.get("field") in (field, "/" + field), f"{label}: field {v.get('field')!r} != {field}")
    allowed = {constraint}
    if constraint in ("pattern", "format"):
        allowed = {"pattern", "format"}
    check(v.get("constraint") in allowed, f"{label}: constraint {v.get('constraint')!r} != {constraint}")
    expected = v.get("expected")
    check(isinstance(expected, str) and expected.strip(), f"{label}: expected empty")
    expected = expected or ""
    if constraint == "enum":
        for value in ENUM:
            check(value in expected, f"{label}: expected does not name {value}")
    if constraint in ("minimum", "maximum", "maxLength", "minLength"):
        bound = SCHEMA["properties"][field][constraint]
        check(re.search(r"(?<![0-9])%d(?![0-9])" % bound, expected),
              f"{label}: expected lacks bound {bound}: {expected}")
    if constraint in ("pattern", "format"):
        tokens = [t for t in TOKEN_SPLIT.split(expected) if t]
        check(any(passes_property(field, t) for t in tokens),
              f"{label}: expected has no valid example: {expected}")
    if constraint == "additionalProperties":
        for name in SCHEMA["properties"]:
            check(name in expected, f"{label}: expected does not name {name}")
    if constraint == "required":
        check(v.get("received") is None, f"{label}: received for a missing argument")
    elif not secret:
        check("received" in v and v["received"] == received and type(v["received"]) is type(received),
              f"{label}: received {v.get('received')!r} != {received!r}")


def expect_validation(session, label, arguments, broken, secret=None):
    """broken: {field: (constraint, received)}."""
    message, raw, sent = call(session, arguments)
    result, sc = payload_of(message, label)
    if sc is None:
        return None
    check(result.get("isError") is True, f"{label}: result.isError not true")
    check(sc.get("errorCategory") == "validation", f"{label}: category {sc.get('errorCategory')}")
    check(sc.get("isRetryable") is False, f"{label}: isRetryable {sc.get('isRetryable')!r}")
    check(isinstance(sc.get("message"), str) and sc["message"].strip(), f"{label}: no message")
    check(sent == [], f"{label}: {len(sent)} request(s) reached the API")
    violations = sc.get("violations")
    check(isinstance(violations, list), f"{label}: violations not a list")
    violations = violations or []
    by_field = {}
    for v in violations:
        by_field.setdefault(str(v.get("field", "")).lstrip("/"), []).append(v)
    for field, (constraint, received) in broken.items():
        got = by_field.get(field, [])
        check(len(got) == 1, f"{label}: {len(got)} violations for {field}")
        if got:
            check_violation(f"{label} [{field}]", got[0], field, constraint, received,
                            secret=secret is not None)
    extra = set(by_field) - set(broken)
    check(not extra, f"{label}: false violations for {sorted(extra)}")
    if secret:
        for i in range(len(secret) - 7):
            if secret[i:i + 8] in raw:
                check(False, f"{label}: the secret's substring {secret[i:i+8]!r} is in the result")
                break
    return sc


def expect_category(session, label, arguments, category, retryable):
    message, raw, sent = call(session, arguments)
    result, sc = payload_of(message, label)
    if sc is None:
        return
    check(result.get("isError") is True, f"{label}: not an error")
    check(sc.get("errorCategory") == category, f"{label}: category {sc.get('errorCategory')} != {category}")
    check(sc.get("isRetryable") is retryable, f"{label}: isRetryable {sc.get('isRetryable')!r}")
    check(sc.get("violations") in (None, []), f"{label}: violations {sc.get('violations')!r}")
    check(isinstance(sc.get("message"), str) and sc["message"].strip(), f"{label}: no message")
    check(len(sent) == 1, f"{label}: {len(sent)} requests")
    check(TOKEN not in raw, f"{label}: token in the result")


def expect_success(session, label, arguments):
    message, raw, sent = call(session, arguments)
    result, sc = payload_of(message, label)
    if sc is None:
        return
    check(not result.get("isError"), f"{label}: isError {result.get('isError')} {sc}")
    check(len(sent) == 1 and sent[0][2] == arguments, f"{label}: requests {sent}")
    created = (sc or {}).get("return")
    check(isinstance(created, dict) and created.get("order_id") == arguments["order_id"]
          and created.get("status") == "open", f"{label}: return {created}")


def repair(session, label, true_args, broken_args):
    """The scripted model: fix every violation that names a broken argument and its constraint."""
    args = dict(broken_args)
    before_all = len(REQUESTS)
    for attempt in range(3):
        message, raw, sent = call(session, args)
        sc = message.get("result", {}).get("structuredContent")
        if not isinstance(sc, dict):
            check(False, f"{label}: no payload: {message}")
            return
        if not sc.get("isError"):
            check(attempt > 0 and sent and sent[0][2] == true_args, f"{label}: final request {sent}")
            check(len(REQUESTS) - before_all == 1, f"{label}: {len(REQUESTS) - before_all} requests in the loop")
            check(sc["return"]["order_id"] == true_args["order_id"], f"{label}: wrong return")
            return
        before = dict(args)
        for v in sc.get("violations") or []:
            field = str(v.get("field")).lstrip("/")
            if field in true_args:
                args[field] = true_args[field]
            elif field in args:
                del args[field]
        if args == before:
            check(False, f"{label}: a model could not act on this feedback: {sc}")
            return
    check(False, f"{label}: not fixed in 3 calls")


def main():
    workspace, lang = sys.argv[1], sys.argv[2]
    command = {"python": ["python3", "server.py"], "node": ["node", "server.mjs"],
               "go": [os.path.join(workspace, ".kata/bin/server")]}[lang]
    httpd = start_api()
    url = "http://127.0.0.1:%d" % httpd.server_address[1]
    s = Session(command, workspace, url)
    init, _ = s.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                       "clientInfo": {"name": "harness", "version": "0"}})
    check("result" in init, "initialize failed")
    listed, _ = s.request("tools/list", {})
    tools = listed["result"]["tools"]
    check([t["name"] for t in tools] == ["create_return"], f"tools {tools}")
    check(tools and tools[0]["inputSchema"] == SCHEMA, "inputSchema differs from the design")

    # success
    expect_success(s, "valid", valid_arguments(new_order_id("ok")))
    expect_success(s, "valid with note", valid_arguments(new_order_id("ok"), note="Box was crushed."))
    expect_success(s, "valid quantity 10", {**valid_arguments(new_order_id("ok")), "quantity": 10})
    expect_success(s, "valid quantity 3.0", {**valid_arguments(new_order_id("ok")), "quantity": 3.0})
    expect_success(s, "valid 200-char note", valid_arguments(new_order_id("ok"), note="a " * 100))

    # one violation each
    base = lambda: valid_arguments(new_order_id("none"))  # noqa: E731
    singles = [
        ("quantity", "minimum", 0), ("quantity", "minimum", -1), ("quantity", "maximum", 11),
        ("quantity", "maximum", 100), ("quantity", "type", "3"), ("quantity", "type", 2.5),
        ("quantity", "type", True), ("reason", "enum", "Damaged"), ("reason", "enum", "damage"),
        ("reason", "enum", "broken"), ("order_id", "pattern", "ord-8821"),
        ("order_id", "pattern", "8821"), ("order_id", "pattern", "ORD-123456789"),
        ("order_id", "pattern", "ORD 8821"), ("order_id", "pattern", "ORD-8821\n"),
        ("order_id", "pattern", "ORD-٤٨٢١"), ("order_id", "type", 8821),
        ("email", "format", "ana.lopezexample.com"), ("email", "format", "ana@lopez@example.com"),
        ("email", "format", "ana.lopez@example"), ("email", "format", "ana lopez@example.com"),
        ("email", "format", "@example.com"), ("note", "maxLength", "x " * 100 + "y"),
        ("note", "type", None),
    ]
    for field, constraint, value in singles:
        args = base()
        args[field] = value
        expect_validation(s, f"{field}:{constraint} {value!r}", args, {field: (constraint, value)})
    for field in SCHEMA["required"]:
        args = base()
        del args[field]
        expect_validation(s, f"{field}:required", args, {field: ("required", None)})
    for extra in ("qty", "orderId"):
        args = base()
        args[extra] = 3
        expect_validation(s, f"additionalProperties {extra}", args,
                          {extra: ("additionalProperties", 3)})
    # all at once
    args = base()
    args.update({"quantity": 12, "reason": "Damaged", "qty": 2})
    del args["email"]
    expect_validation(s, "four at once", args, {"quantity": ("maximum", 12),
                                                "reason": ("enum", "Damaged"),
                                                "email": ("required", None),
                                                "qty": ("additionalProperties", 2)})
    expect_validation(s, "no arguments", {}, {f: ("required", None) for f in SCHEMA["required"]})
    # secrets
    for secret in ("sk_live_4eC39HqLyjWDarjtT1zdp7dcxyz", "sk-proj-abcdefghijklmnop",
                   "ghp_16C7e42F292c6912E7710c838347Ae178B4a", "AKIAIOSFODNN7EXAMPLE",
                   "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",
                   "github_pat_11ABCDEFG0abcdefghijkl", "x" * 40):
        args = base()
        args["order_id"] = secret
        expect_validation(s, f"secret order_id {secret[:6]}", args,
                          {"order_id": ("pattern", secret)}, secret=secret)
    args = base()
    secret = "sk_live_" + "Q" * 30
    args["api_key"] = secret
    expect_validation(s, "secret extra", args, {"api_key": ("additionalProperties", secret)},
                      secret=secret)
    args = base()
    args["quantity"] = 0
    args["note"] = "T" * 40
    expect_validation(s, "valid secret-like note beside a broken quantity", args,
                      {"quantity": ("minimum", 0)}, secret="T" * 40)

    # what a model cannot fix
    for kind, category, retryable in ((404, "not_found", False), (409, "business", False),
                                      (422, "business", False), (401, "auth", False),
                                      (403, "auth", False), (500, "transient", True),
                                      (503, "transient", True), (429, "transient", True),
                                      ("slow", "transient", True), ("drop", "transient", True)):
        expect_category(s, f"backend {kind}", valid_arguments(new_order_id(kind)), category,
                        retryable)

    # the repair loop of a scripted model
    true_args = valid_arguments(new_order_id("ok"), note="Wrong size.")
    broken = {**true_args, "quantity": 0, "reason": "Damaged", "orderId": "x"}
    del broken["email"]
    repair(s, "repair", true_args, broken)

    # an unknown tool is a protocol error
    message, _ = s.request("tools/call", {"name": "cancel_order", "arguments": {}})
    check(message.get("error", {}).get("code") == -32602, f"unknown tool: {message}")
    check(not s.stray, f"stray stdout lines: {s.stray[:3]}")
    s.close()

    # a refused connection
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    s2 = Session(command, workspace, "http://127.0.0.1:%d" % closed.getsockname()[1])
    s2.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "harness", "version": "0"}})
    message, raw, _ = call(s2, valid_arguments("ORD-4242"))
    result, sc = payload_of(message, "refused")
    check(sc and sc.get("errorCategory") == "transient" and sc.get("isRetryable") is True,
          f"refused: {sc}")
    s2.close()
    closed.close()
    httpd.shutdown()
    print(f"{lang}: {len(FAILS)} failing checks")
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()

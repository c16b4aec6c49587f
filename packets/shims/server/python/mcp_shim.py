"""A small, complete MCP server for the stdio transport. You need not touch this file.

It speaks newline-delimited JSON-RPC 2.0 on stdin/stdout (one message per line, UTF-8) and
answers the handful of methods a tools-only server needs. Your code lives in server.py:

    from mcp_shim import Server, ok, tool_error, log

    server = Server("orders", "1.0.0")

    @server.tool("lookup_order", "Look up one order.", {"type": "object", "properties": {...}})
    def lookup_order(arguments):          # arguments: dict, {} when the call sent none
        return ok({"order": {...}})       # or tool_error({...your typed error payload...})

    server.run()

Rules the shim keeps for you, and that your code must keep too:
  * stdout carries JSON-RPC messages and nothing else. Never print() in a server: use log(...),
    which writes to stderr. A stray line on stdout breaks the client's connection.
  * A handler returns a CallToolResult built with ok(payload) or tool_error(payload). Both put the
    payload in "structuredContent" and, as JSON text, in the first "content" block; tool_error
    also sets "isError": true.
  * A handler that raises is caught: the traceback goes to stderr and the client gets an isError
    result whose only content is the text "unhandled exception in <tool>: <exception>" (no typed
    payload, so the grader will not accept it as one).
  * raise JsonRpcError(code, message) makes the shim answer with a JSON-RPC error instead of a
    tool result. A tool's own failures should not use it (see TASK.md).

Requests are handled one at a time, in the order they arrive. The server exits cleanly when
stdin closes.
"""

import json
import sys
import traceback

__all__ = ["Server", "JsonRpcError", "ok", "tool_error", "log"]

SUPPORTED_PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


class JsonRpcError(Exception):
    """Raise from a handler to answer the request with a JSON-RPC error object."""

    def __init__(self, code, message, data=None):
        super().__init__(message)
        self.code = int(code)
        self.message = str(message)
        self.data = data

    def to_json(self):
        error = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def _result(payload, is_error):
    return {
        "content": [{"type": "text", "text": json.dumps(payload)}],
        "structuredContent": payload,
        "isError": is_error,
    }


def ok(payload):
    """A successful tool result carrying payload (a dict)."""
    return _result(payload, False)


def tool_error(payload):
    """A failed tool result ("isError": true) carrying payload (a dict)."""
    return _result(payload, True)


def log(*parts):
    """Write one line to stderr. stderr is for humans; stdout is only for the protocol."""
    try:
        sys.stderr.write(" ".join(str(p) for p in parts) + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _text_error(text):
    return {"content": [{"type": "text", "text": text}], "isError": True}


class Server:
    def __init__(self, name, version):
        self.name = str(name)
        self.version = str(version)
        self._tools = {}  # name -> (definition, handler), in registration order

    def tool(self, name, description, input_schema, output_schema=None):
        """Decorator: register handler(arguments: dict) -> CallToolResult as tool `name`."""

        def register(handler):
            definition = {"name": name, "description": description, "inputSchema": input_schema}
            if output_schema is not None:
                definition["outputSchema"] = output_schema
            self._tools[name] = (definition, handler)
            return handler

        return register

    # -- the loop -------------------------------------------------------------------------------

    def run(self):
        # sys.__stdout__ is the process's real stdout even if someone rebinds sys.stdout.
        self._out = sys.__stdout__
        stdin = sys.stdin.buffer
        while True:
            try:
                raw = stdin.readline()
            except KeyboardInterrupt:
                return
            if not raw:
                return  # EOF: the client closed our stdin; exit cleanly
            if not raw.strip():
                continue
            try:
                self._handle_line(raw)
            except (BrokenPipeError, KeyboardInterrupt):
                return

    def _send(self, message):
        # ensure_ascii keeps every line plain ASCII, whatever the locale's encoding.
        self._out.write(json.dumps(message) + "\n")
        self._out.flush()

    def _send_error(self, id_, code, message):
        self._send({"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}})

    def _handle_line(self, raw):
        try:
            message = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            self._send_error(None, PARSE_ERROR, "Parse error: %s" % exc)
            return
        if not isinstance(message, dict):
            self._send_error(None, INVALID_REQUEST, "Invalid Request: expected a JSON object")
            return
        method = message.get("method")
        if "id" not in message:
            return  # a notification (notifications/initialized, cancelled, ...): nothing to answer
        id_ = message["id"]
        if method is None:
            return  # a response to a request we never sent: ignore
        if not isinstance(method, str) or not (id_ is None or isinstance(id_, (str, int))):
            self._send_error(id_ if isinstance(id_, (str, int)) else None, INVALID_REQUEST,
                             "Invalid Request")
            return
        params = message.get("params")
        if params is None:
            params = {}
        try:
            if not isinstance(params, dict):
                raise JsonRpcError(INVALID_PARAMS, "params must be an object")
            result = self._dispatch(method, params)
        except JsonRpcError as exc:
            self._send({"jsonrpc": "2.0", "id": id_, "error": exc.to_json()})
            return
        except Exception as exc:  # a bug in the shim itself; keep serving
            traceback.print_exc(file=sys.stderr)
            self._send_error(id_, INTERNAL_ERROR, "Internal error: %s" % exc)
            return
        try:
            line = json.dumps({"jsonrpc": "2.0", "id": id_, "result": result})
        except (TypeError, ValueError) as exc:  # a hand-built result that is not JSON
            log("result of %s is not JSON: %s" % (method, exc))
            self._send_error(id_, INTERNAL_ERROR, "Internal error: result is not JSON: %s" % exc)
            return
        self._out.write(line + "\n")
        self._out.flush()

    def _dispatch(self, method, params):
        if method == "initialize":
            requested = params.get("protocolVersion")
            if requested in SUPPORTED_PROTOCOL_VERSIONS:
                version = requested
            else:
                version = LATEST_PROTOCOL_VERSION
            return {
                "protocolVersion": version,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": self.name, "version": self.version},
            }
        if method == "ping":
            return {}
        if method == "tools/list":
            return {"tools": [definition for definition, _ in self._tools.values()]}
        if method == "tools/call":
            return self._call_tool(params)
        raise JsonRpcError(METHOD_NOT_FOUND, "Method not found: %s" % method)

    def _call_tool(self, params):
        name = params.get("name")
        if not isinstance(name, str) or name not in self._tools:
            raise JsonRpcError(INVALID_PARAMS, "Unknown tool: %s" % (name,))
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise JsonRpcError(INVALID_PARAMS, "arguments must be an object")
        _, handler = self._tools[name]
        try:
            result = handler(arguments)
        except JsonRpcError:
            raise
        except Exception as exc:
            log("unhandled exception in %s:" % name)
            traceback.print_exc(file=sys.stderr)
            sys.stderr.flush()
            return _text_error("unhandled exception in %s: %s" % (name, exc))
        if not isinstance(result, dict) or not isinstance(result.get("content"), list):
            log("tool %s returned %s, not a CallToolResult" % (name, type(result).__name__))
            return _text_error(
                "tool %s returned a %s, not a tool result: return ok(payload) or "
                "tool_error(payload)" % (name, type(result).__name__))
        return result

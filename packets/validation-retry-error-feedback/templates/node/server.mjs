// The orders MCP server: your file.
//
// It runs and lists its one tool, create_return, with the whole input schema, but the handler is
// not written yet: every call answers with a placeholder error. The TODO(step N) comments point
// at the steps of TASK.md. Run `kata grade` to see what is still missing.
//
// mcp_shim.mjs does the protocol for you (you need not touch it): a handler gets the call's
// arguments as an object, exactly as the model sent them (the shim checks nothing against the
// schema), and returns ok(payload) or toolError(payload).

import { Server, log, ok, toolError } from "./mcp_shim.mjs";

const API_URL = (process.env.ORDERS_API_URL ?? "").replace(/\/+$/, "");
const API_TOKEN = process.env.ORDERS_API_TOKEN ?? "";
const TIMEOUT_SECONDS = Number(process.env.ORDERS_API_TIMEOUT_SECONDS || 5);

const server = new Server("orders", "0.1.0");

/** A 4xx/5xx answer from the Orders API. */
class HttpError extends Error {
  constructor(status, body) {
    super(`HTTP ${status}`);
    this.name = "HttpError";
    this.status = status; // the HTTP status code, e.g. 409
    this.body = body; // the response body as text, e.g. '{"error": "return_window_closed"}'
  }
}

/**
 * POST body as JSON to API_URL + path and return the decoded JSON answer.
 *
 * Throws HttpError for a 4xx/5xx answer (e.status is the status, e.body the body), a
 * DOMException named "TimeoutError" when the API is slower than the timeout, and a TypeError
 * ("fetch failed", the cause in e.cause) when the service cannot be reached or drops the
 * connection. Keep the timeout: without it a slow backend hangs the whole call.
 */
async function apiPost(path, body) {
  const response = await fetch(API_URL + path, {
    method: "POST",
    headers: {
      Authorization: "Bearer " + API_TOKEN,
      Accept: "application/json",
      "Content-Type": "application/json",
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(Math.round(TIMEOUT_SECONDS * 1000)),
  });
  const text = await response.text();
  if (!response.ok) {
    throw new HttpError(response.status, text);
  }
  return JSON.parse(text);
}

// The whole input schema, "required" kept: it is what the model reads before it calls. The shim
// does not enforce it, so every call reaches create_return below, and checking the arguments
// against it is your code's job (steps 2 and 3).
const CREATE_RETURN_SCHEMA = {
  type: "object",
  properties: {
    order_id: { type: "string", pattern: "^ORD-[0-9]{4,8}$", examples: ["ORD-8821", "ORD-104427"] },
    quantity: { type: "integer", minimum: 1, maximum: 10 },
    reason: { type: "string", enum: ["damaged", "wrong_item", "not_needed", "arrived_late"] },
    email: { type: "string", format: "email", examples: ["ana.lopez@example.com"] },
    note: { type: "string", maxLength: 200 },
  },
  required: ["order_id", "quantity", "reason", "email"],
  additionalProperties: false,
};

server.tool(
  "create_return",
  "Open a return for items of one order and email the customer a return label.",
  CREATE_RETURN_SCHEMA,
  async (args) => {
    // Logs go to stderr with log(...): console.log() would write to stdout, which carries
    // JSON-RPC and nothing else. Mind what you log (step 4).
    // TODO(step 1): on a valid call, send one POST /returns with the arguments as its body
    // (apiPost) and answer ok({ return: <the API's body> }).
    // TODO(step 2): check the arguments against CREATE_RETURN_SCHEMA before any request. A
    // violation is a toolError with the typed payload { isError: true, errorCategory:
    // "validation", isRetryable: false, message: ..., violations: [...] }, each violation
    // { field: "quantity", constraint: "maximum" (the JSON Schema keyword that failed),
    // expected: what would pass, with a valid example, received: the value sent }. Nothing is
    // sent to the API while an argument is invalid.
    // TODO(step 3): report every violation at once, one per broken argument (a missing required
    // one, a value of the wrong type, an unknown argument too), and none for a valid argument.
    // TODO(step 4): "received" never echoes a secret: redact a string that starts with sk_, sk-,
    // ghp_, gho_, github_pat_, xoxb-, xoxp- or AKIA, or has 32 or more characters and no white
    // space, here and everywhere else in the result (message, text).
    // TODO(step 5): what a model cannot fix by changing its arguments is not validation and not
    // retryable: a 404 is not_found, a 409 business, a 401 or 403 auth. A 5xx, a timeout
    // or a dropped connection is transient, the one retryable category. Catch
    // failures by kind; a bare catch that files everything as transient also files your own
    // bugs there.
    log("create_return", "called, but not written yet");
    return toolError({
      isError: true,
      errorCategory: "not_written_yet", // not a category of this kata: replace it all
      isRetryable: false,
      message: "create_return is not written yet.",
      violations: [],
    });
  },
);

server.run();

// The orders MCP server: your file.
//
// It runs, lists lookup_order and answers the happy path. Its failures are the anti-pattern this
// kata is about: one generic string, no flags, so the client has to guess. The TODO(step N)
// comments point at the steps of TASK.md. Run `kata grade` to see what is still missing.
//
// mcp_shim.mjs does the protocol for you (you need not touch it): a handler gets the call's
// arguments as an object and returns ok(payload) or toolError(payload).

import { Server, log, ok, toolError } from "./mcp_shim.mjs";

// These three values come from the environment, which .mcp.json fills with ${VAR} references.
// TODO(step 2): if ORDERS_API_URL or ORDERS_API_TOKEN is empty, write a message to stderr with
// log(...) and exit, rather than sending "Authorization: Bearer " with nothing after it.
const API_URL = (process.env.ORDERS_API_URL ?? "").replace(/\/+$/, "");
const API_TOKEN = process.env.ORDERS_API_TOKEN ?? "";
const TIMEOUT_SECONDS = Number(process.env.ORDERS_API_TIMEOUT_SECONDS || 5);

const server = new Server("orders", "0.1.0");

/** A 4xx/5xx answer from the Orders API. */
class HttpError extends Error {
  constructor(status, headers, body) {
    super(`HTTP ${status}`);
    this.name = "HttpError";
    this.status = status; // the HTTP status code, e.g. 429
    this.headers = headers; // a Headers object: headers.get("retry-after")
    this.body = body; // the response body as text
  }
}

/**
 * GET API_URL + path and return the decoded JSON body.
 *
 * Throws HttpError for a 4xx/5xx answer (e.status is the status, e.headers the headers), a
 * DOMException named "TimeoutError" when the API is slower than the timeout, and a TypeError
 * ("fetch failed", the cause in e.cause) when the service cannot be reached or drops the
 * connection. Keep the timeout: without it a slow backend hangs the whole call.
 */
async function apiGet(path) {
  const response = await fetch(API_URL + path, {
    headers: { Authorization: "Bearer " + API_TOKEN, Accept: "application/json" },
    signal: AbortSignal.timeout(Math.round(TIMEOUT_SECONDS * 1000)),
  });
  if (!response.ok) {
    throw new HttpError(response.status, response.headers, await response.text());
  }
  return JSON.parse(await response.text());
}

// The argument is declared with its type but NOT listed as "required". A server (or SDK) that
// validates input against the schema before the handler runs answers a missing argument with its
// own untyped text, and the client gets no errorCategory. Every failure, a missing argument
// included, must come back as your typed payload, so the handler checks presence and format itself.
// Leaving "required" out is a workaround with a cost: the model reading the schema no longer
// sees which arguments it must send. This shim passes every call to the handler, so you may
// list them in "required" and still answer with the typed payload (see the knowledge layer).
const LOOKUP_ORDER_SCHEMA = {
  type: "object",
  properties: {
    order_id: { type: "string", description: "The order id, e.g. ORD-8821." },
  },
};

server.tool("lookup_order", "Look up one order by its id.", LOOKUP_ORDER_SCHEMA, async (args) => {
  // TODO(step 5): logs go to stderr with log(...). console.log() would write to stdout, which
  // carries JSON-RPC and nothing else.
  log("lookup_order", args);
  // TODO(step 3): validate the argument yourself before any request: a missing order_id, "",
  // or one that is not ORD- and four or more digits is fatal, and nothing is sent to the API.
  const orderId = args.order_id;
  try {
    const order = await apiGet("/orders/" + encodeURIComponent(String(orderId)));
    return ok({ order });
  } catch (e) {
    // TODO(step 3): map every failure to its category (auth, rate_limit, transient, fatal) with
    // isError, errorCategory, isRetryable and retryAfterSeconds. Tell failures apart by kind
    // (HttpError and its status, a timeout, a network error): a bare catch that files everything
    // as transient also files your own bugs there.
    // TODO(step 4): on a 429 or a 503 that sends Retry-After (seconds or an HTTP-date),
    // carry it as retryAfterSeconds, a whole number; null whenever the API stated no wait.
    // TODO(step 5): a failure is a tool result with isError true, never a JSON-RPC error, and the
    // server never repeats a request on its own.
    return toolError({ error: `failed: ${e}` });
  }
});

server.run();

// The orders MCP server: your file.
//
// It runs, lists its two tools and answers the happy path. Its failures are the anti-pattern this
// kata is about: one generic string, no flags, so the agent has to guess. The TODO(step N) comments
// point at the steps of TASK.md. Run `kata grade` to see what is still missing.
//
// mcp_shim.mjs does the protocol for you (you need not touch it): a handler gets the call's
// arguments as an object and returns ok(payload) or toolError(payload).

import { Server, log, ok, toolError } from "./mcp_shim.mjs";

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

// The arguments are declared with their types but NOT listed as "required". A server (or SDK)
// that validates input against the schema before the handler runs answers a missing argument with
// its own untyped text, and the agent gets no errorCategory. Every failure, a missing argument
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

const SEARCH_ORDERS_SCHEMA = {
  type: "object",
  properties: {
    customer_id: { type: "string", description: "The customer id, e.g. C-1042." },
  },
};

server.tool("lookup_order", "Look up one order by its id.", LOOKUP_ORDER_SCHEMA, async (args) => {
  // TODO(step 5): logs go to stderr with log(...). console.log() would write to stdout, which
  // carries JSON-RPC and nothing else.
  log("lookup_order", args);
  // TODO(step 1): validate the argument yourself before any request: a missing order_id or one
  // that does not look like ORD- and four or more digits is a validation error, and nothing is
  // sent to the API.
  const orderId = args.order_id;
  try {
    const order = await apiGet("/orders/" + encodeURIComponent(String(orderId)));
    return ok({ order });
  } catch (e) {
    // TODO(step 2): map every backend failure to its category (auth, not_found, rate_limit,
    // transient) with isError, errorCategory, isRetryable, retryAfterSeconds and explanation.
    // TODO(step 3): on a 429, and on a 503 that sends it, carry Retry-After (seconds
    // or an HTTP-date) as retryAfterSeconds; null when the API stated no wait.
    // TODO(step 5): a failure is a tool result with isError true, never a JSON-RPC error.
    return toolError({ error: `failed: ${e}` });
  }
});

server.tool(
  "search_orders",
  "List every order of one customer.",
  SEARCH_ORDERS_SCHEMA,
  async (args) => {
    log("search_orders", args);
    // TODO(step 1): validate customer_id (C- and digits) before any request.
    const customerId = args.customer_id;
    try {
      // TODO(step 4): this reads page 1 only. Follow next_page until it is null.
      const body = await apiGet(
        "/customers/" + encodeURIComponent(String(customerId)) + "/orders?page=1",
      );
      const orders = body.orders;
      if (orders.length === 0) {
        // TODO(step 4): a customer with no orders is a success: {"orders": []}.
        return toolError({ error: "failed: no orders found" });
      }
      return ok({ orders });
    } catch (e) {
      // TODO(step 2) and TODO(step 3): the same typed mapping as lookup_order.
      return toolError({ error: `failed: ${e}` });
    }
  },
);

server.run();

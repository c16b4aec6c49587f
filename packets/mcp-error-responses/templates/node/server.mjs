// The orders MCP server: your file.
//
// It runs, lists its three tools and answers the happy path. Its failures are the anti-pattern
// this kata is about: one generic "failed" string with no category, no flag and no context, so the
// agent has to guess. The TODO(step N) comments point at the steps of TASK.md. Run `kata grade` to
// see what is still missing.
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
    this.status = status; // the HTTP status code, e.g. 422
    this.headers = headers; // a Headers object: headers.get("retry-after")
    this.body = body; // the response body as text, e.g. '{"error": "refund_limit_exceeded"}'
  }
}

/**
 * Send one request to API_URL + path and return the decoded JSON body.
 *
 * Throws HttpError for a 4xx/5xx answer (e.status is the status, e.headers the headers, e.body
 * the body), a DOMException named "TimeoutError" when the API is slower than the timeout, and a
 * TypeError ("fetch failed", the cause in e.cause) when the service cannot be reached or drops
 * the connection. Keep the timeout: without it a slow backend hangs the whole call.
 */
async function apiRequest(method, path, body = undefined) {
  const headers = { Authorization: "Bearer " + API_TOKEN, Accept: "application/json" };
  const init = {
    method,
    headers,
    signal: AbortSignal.timeout(Math.round(TIMEOUT_SECONDS * 1000)),
  };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    headers["Content-Type"] = "application/json";
  }
  const response = await fetch(API_URL + path, init);
  if (!response.ok) {
    throw new HttpError(response.status, response.headers, await response.text());
  }
  return JSON.parse(await response.text());
}

function apiGet(path) {
  return apiRequest("GET", path);
}

function apiPost(path, body) {
  return apiRequest("POST", path, body);
}

// The arguments are declared with their types but NOT listed as "required". A server (or SDK)
// that validates input against the schema before the handler runs answers a missing argument with
// its own untyped text, and the agent gets no errorCategory and no field. Every failure, a missing
// argument included, must come back as your typed payload, so the handlers check it themselves.
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

const PROCESS_REFUND_SCHEMA = {
  type: "object",
  properties: {
    order_id: { type: "string", description: "The order to refund, e.g. ORD-8821." },
    amount: { type: "number", description: "The refund amount, more than 0." },
  },
};

server.tool("lookup_order", "Look up one order by its id.", LOOKUP_ORDER_SCHEMA, async (args) => {
  // TODO(step 6): logs go to stderr with log(...). console.log() would write to stdout, which
  // carries JSON-RPC and nothing else.
  log("lookup_order", args);
  // TODO(step 1): validate the argument yourself before any request: a missing order_id or one
  // that is not ORD- and four or more digits is a validation error with field "order_id", and
  // nothing is sent to the API.
  const orderId = args.order_id;
  try {
    const order = await apiGet("/orders/" + encodeURIComponent(String(orderId)));
    return ok({ order });
  } catch (e) {
    // TODO(step 1): a 404 is validation too, with field "order_id".
    // TODO(step 2): 429, 5xx, a timeout and a refused or dropped connection are transient.
    // TODO(step 4): 401 and 403 are permission.
    // Every failure carries isError, errorCategory, isRetryable, a message for the customer,
    // attemptedQuery (with every argument value) and partialResults (null here). Catch failures
    // by kind; a bare catch that files everything as transient also files your own bugs there.
    // TODO(step 6): a failure is a tool result with isError true, never a JSON-RPC error.
    return toolError({ error: `failed: ${e}` });
  }
});

server.tool(
  "search_orders",
  "List every order of one customer, all pages.",
  SEARCH_ORDERS_SCHEMA,
  async (args) => {
    log("search_orders", args);
    // TODO(step 1): validate customer_id (C- and one or more digits) before any request.
    const customerId = args.customer_id;
    const orders = [];
    let page = 1;
    try {
      while (page !== null && page !== undefined) {
        const body = await apiGet(
          "/customers/" + encodeURIComponent(String(customerId)) + "/orders?page=" + String(page),
        );
        orders.push(...body.orders);
        page = body.next_page;
      }
    } catch (e) {
      if (orders.length > 0) {
        // TODO(step 2): this passes part of the history off as all of it. A failure on a later
        // page is a transient error whose partialResults carries the orders fetched so far.
        return ok({ orders });
      }
      // TODO(step 1), TODO(step 2) and TODO(step 4): the same typed mapping as lookup_order;
      // a 404 names field "customer_id".
      return toolError({ error: `failed: ${e}` });
    }
    if (orders.length === 0) {
      // TODO(step 5): a customer with no orders is a success: {"orders": []}.
      return toolError({ error: "failed: no orders found" });
    }
    return ok({ orders });
  },
);

server.tool(
  "process_refund",
  "Refund an amount of one order (at most 500 without approval).",
  PROCESS_REFUND_SCHEMA,
  async (args) => {
    log("process_refund", args);
    // TODO(step 1): check order_id first, then amount: a JSON number greater than 0
    // (typeof amount === "number"; "120" is a string and true is a boolean). Report the first
    // argument that fails in field, and send nothing.
    // TODO(step 3): a refund above 500 is a business error, not retryable. Check it yourself
    // before any request, or map the API's 422 refund_limit_exceeded; the payload is the same.
    const orderId = args.order_id;
    const amount = args.amount;
    try {
      const refund = await apiPost("/refunds", { order_id: orderId, amount });
      return ok({ refund });
    } catch (e) {
      // TODO(step 2): a timeout or 5xx on a refund is transient, but the refund may already have
      // been applied: the message must say it could not be confirmed, never that trying again is
      // safe. And never send the POST a second time yourself.
      // TODO(step 4): 401 and 403 are permission; a 404 is validation with field "order_id".
      return toolError({ error: `failed: ${e}` });
    }
  },
);

server.run();

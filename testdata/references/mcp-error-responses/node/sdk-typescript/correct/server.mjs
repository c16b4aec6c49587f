// The orders MCP server on the official TypeScript SDK: a reference solution for
// mcp-error-responses, written the way the SDK's own documentation writes a server (McpServer,
// registerTool with a zod input shape, the stdio transport), with no private API.
//
// Every failure is a tool result with isError true and the typed payload
// {isError, errorCategory, isRetryable, message, attemptedQuery, partialResults} (plus field on a
// validation error), in the four categories transient, validation, business and permission. An
// empty search is a success. Each argument is optional in its zod shape and no tool declares an
// outputSchema, so every call reaches its handler and every error result leaves as built. One
// HTTP request per lookup, page or refund, never a retry, logs on stderr only.

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import * as z from "zod";

function log(...parts) {
  console.error(...parts); // stderr: stdout carries JSON-RPC only
}

/** A CallToolResult carrying payload in structuredContent and, as JSON text, in content. */
function result(payload, isError) {
  return {
    content: [{ type: "text", text: JSON.stringify(payload) }],
    structuredContent: payload,
    isError,
  };
}

const ok = (payload) => result(payload, false);
const toolError = (payload) => result(payload, true);

const API_URL = (process.env.ORDERS_API_URL ?? "").replace(/\/+$/, "");
const API_TOKEN = process.env.ORDERS_API_TOKEN ?? "";
let TIMEOUT_SECONDS = Number(process.env.ORDERS_API_TIMEOUT_SECONDS || 5);
if (!Number.isFinite(TIMEOUT_SECONDS) || TIMEOUT_SECONDS < 0) {
  log("ORDERS_API_TIMEOUT_SECONDS is not a number; using 5");
  TIMEOUT_SECONDS = 5;
}

const RETRYABLE = {
  transient: true,
  validation: false,
  business: false,
  permission: false,
};

const ORDER_ID = /^ORD-[0-9]{4,}$/;
const CUSTOMER_ID = /^C-[0-9]+$/;

const REFUND_LIMIT = 500; // refunds above this need a manager's approval

const MAX_PAGES = 1000; // a guard against a service whose next_page never ends

/**
 * A failure with its category, thrown below and turned into the typed payload.
 *
 * message is for the customer; detail is for whoever reads the log (status, page, timeout) and
 * travels in attemptedQuery, never in message.
 */
class ToolFailure extends Error {
  constructor(category, message, detail = null, field = null) {
    super(message);
    this.name = "ToolFailure";
    this.category = category;
    this.message = message;
    this.detail = detail;
    this.field = field;
    this.partialResults = null;
  }
}

// -- attemptedQuery -------------------------------------------------------------------------------

/** An argument value as it appears in attemptedQuery: strings as they are, the rest as JSON. */
function showValue(value) {
  if (typeof value === "string") {
    return value ? value : '""';
  }
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text;
  } catch {
    return String(value);
  }
}

/**
 * The call as it was received, every argument value included, e.g.
 * "process_refund order_id: ORD-8821, amount: 750" or "lookup_order with no order_id".
 */
function attemptedQuery(tool, args, names, detail = null) {
  const given = names.filter((n) => Object.hasOwn(args, n)).map((n) => `${n}: ${showValue(args[n])}`);
  for (const name of Object.keys(args).sort()) {
    if (!names.includes(name)) {
      given.push(`${name}: ${showValue(args[name])}`);
    }
  }
  const missing = names.filter((n) => !Object.hasOwn(args, n));
  let text = tool;
  if (given.length > 0) {
    text += " " + given.join(", ");
  }
  if (missing.length > 0) {
    text += (given.length > 0 ? ", with no " : " with no ") + missing.join(" and no ");
  }
  if (detail) {
    text += ` (${detail})`;
  }
  return text;
}

function typedError(failure, tool, args, names) {
  const payload = {
    isError: true,
    errorCategory: failure.category,
    isRetryable: RETRYABLE[failure.category],
    message: failure.message,
    attemptedQuery: attemptedQuery(tool, args, names, failure.detail),
    partialResults: failure.partialResults,
  };
  if (failure.category === "validation") {
    payload.field = failure.field;
  }
  log("error:", JSON.stringify(payload));
  return toolError(payload);
}

// -- validation (step 1) --------------------------------------------------------------------------

function requireId(args, name, pattern, missingMessage, malformedMessage) {
  const value = args[name];
  if (!Object.hasOwn(args, name) || value === null || value === undefined) {
    throw new ToolFailure("validation", missingMessage, "no request sent", name);
  }
  if (typeof value !== "string" || !pattern.test(value)) {
    throw new ToolFailure("validation", malformedMessage, "malformed, no request sent", name);
  }
  return value;
}

function requireOrderId(args) {
  return requireId(
    args,
    "order_id",
    ORDER_ID,
    "I need the order number to go on. Order numbers look like ORD-8821.",
    "That order number doesn't look right. Order numbers look like ORD-8821.",
  );
}

function requireCustomerId(args) {
  return requireId(
    args,
    "customer_id",
    CUSTOMER_ID,
    "I need the customer number to go on. Customer numbers look like C-1042.",
    "That customer number doesn't look right. Customer numbers look like C-1042.",
  );
}

function requireAmount(args) {
  const value = args.amount;
  if (!Object.hasOwn(args, "amount") || value === null || value === undefined) {
    throw new ToolFailure(
      "validation",
      "I need the amount to refund, for example 120.00.",
      "no request sent",
      "amount",
    );
  }
  // JSON numbers only: "120" is a string, true is a boolean.
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new ToolFailure(
      "validation",
      "The refund amount must be a number, for example 120.00.",
      "amount is not a number, no request sent",
      "amount",
    );
  }
  if (value <= 0) {
    throw new ToolFailure(
      "validation",
      "The refund amount must be more than zero.",
      "amount must be greater than 0, no request sent",
      "amount",
    );
  }
  return value;
}

// -- the Orders API (steps 2 and 4) ---------------------------------------------------------------

/** A 4xx/5xx answer from the Orders API. */
class HttpError extends Error {
  constructor(status, headers, body) {
    super(`HTTP ${status}`);
    this.name = "HttpError";
    this.status = status;
    this.headers = headers;
    this.body = body;
  }
}

/** The "error" string of an HTTP error's JSON body, or "". */
function errorCode(error) {
  try {
    const body = JSON.parse(error.body);
    if (body && typeof body === "object" && typeof body.error === "string") {
      return body.error;
    }
  } catch {
    // not JSON: no code
  }
  return "";
}

/**
 * What one tool call is about: its words for the customer, and the argument that carries the id
 * (the field a 404 names).
 */
class Call {
  constructor(idField, thing, isRefund = false) {
    this.idField = idField;
    this.thing = thing; // e.g. "order ORD-8821"
    this.isRefund = isRefund;
  }

  transientMessage(why) {
    if (this.isRefund) {
      // A POST that timed out or failed may have been applied: promise nothing.
      return (
        "I couldn't confirm whether the refund went through. It will be checked " +
        "before anything is sent again."
      );
    }
    if (why === "busy") {
      return "The order system is busy right now. Trying again in a moment should work.";
    }
    if (why === "slow") {
      return "The order system is slow to respond. Trying again soon should work.";
    }
    return "The order system is having a temporary problem. Trying again in a moment should work.";
  }
}

function httpFailure(call, what, error) {
  const status = error.status;
  const code = errorCode(error);
  let detail = `${what}: ${status}` + (code ? ` ${code}` : "");
  if (status === 401 || status === 403) {
    const message = call.isRefund
      ? "I can't issue refunds right now, so no refund was made. A colleague with access will " +
        "take this over."
      : "I can't open order records right now. A colleague with access will help.";
    return new ToolFailure("permission", message, detail);
  }
  if (status === 404) {
    return new ToolFailure(
      "validation",
      `I couldn't find ${call.thing}. Could you check the number?`,
      detail,
      call.idField,
    );
  }
  if (status === 422 && call.isRefund) {
    return new ToolFailure(
      "business",
      "Refunds above $500 need a manager's approval. I can ask a manager to approve it, " +
        "or refund $500 or less now.",
      detail,
    );
  }
  if (status === 429) {
    const header = error.headers.get("retry-after"); // null when absent
    if (header !== null) {
      detail += `, Retry-After: ${header}`;
    }
    // A rate-limited request was refused before it was processed: nothing was applied.
    const message = call.isRefund
      ? "The refund system is busy and made no refund. It can be tried again soon."
      : call.transientMessage("busy");
    return new ToolFailure("transient", message, detail);
  }
  if (status === 408 || (status >= 500 && status <= 599)) {
    return new ToolFailure("transient", call.transientMessage("unavailable"), detail);
  }
  // Another 4xx: the API refused this request as it stands; the same call will fail again.
  return new ToolFailure(
    "validation",
    `The order system did not accept the request for ${call.thing}.`,
    detail,
    call.idField,
  );
}

function isTimeout(error) {
  return error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError");
}

/** Send one request: exactly one, with the timeout, never retried. Returns the JSON body. */
async function apiRequest(call, method, path, body = undefined) {
  const what = `${method} ${path}`;
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
  let raw;
  try {
    const response = await fetch(API_URL + path, init);
    raw = await response.text();
    if (!response.ok) {
      throw new HttpError(response.status, response.headers, raw);
    }
  } catch (error) {
    if (error instanceof HttpError) {
      throw httpFailure(call, what, error);
    }
    if (isTimeout(error)) {
      throw new ToolFailure(
        "transient",
        call.transientMessage("slow"),
        `${what} timed out after ${TIMEOUT_SECONDS} s`,
      );
    }
    if (error instanceof TypeError) {
      // fetch's network errors: refused, unreachable, reset, dropped, cut short
      const cause = error.cause ? ` (${error.cause.code || error.cause.message || error.cause})` : "";
      throw new ToolFailure(
        "transient",
        call.transientMessage("unavailable"),
        `${what} failed: ${error.message}${cause}`,
      );
    }
    throw error; // a bug in our own code: not a transient failure
  }
  try {
    return JSON.parse(raw);
  } catch {
    throw new ToolFailure("transient", call.transientMessage("unavailable"), `${what}: answer is not JSON`);
  }
}

function quoted(value) {
  return encodeURIComponent(value);
}

// -- the tools ------------------------------------------------------------------------------------

async function lookupOrder(args) {
  log("lookup_order", JSON.stringify(args));
  let order;
  try {
    const orderId = requireOrderId(args);
    const call = new Call("order_id", `order ${orderId}`);
    order = await apiRequest(call, "GET", "/orders/" + quoted(orderId));
  } catch (failure) {
    if (failure instanceof ToolFailure) {
      return typedError(failure, "lookup_order", args, ["order_id"]);
    }
    throw failure;
  }
  return ok({ order });
}

async function searchOrders(args) {
  log("search_orders", JSON.stringify(args));
  const orders = [];
  let pagesFetched = 0;
  try {
    const customerId = requireCustomerId(args);
    const call = new Call("customer_id", `customer ${customerId}`);
    let page = 1;
    const seen = new Set();
    while (page !== null && page !== undefined) {
      if (seen.has(String(page)) || seen.size >= MAX_PAGES) {
        throw new ToolFailure(
          "transient",
          call.transientMessage("unavailable"),
          `the pages never reach a last page (next_page ${JSON.stringify(page)} again)`,
        );
      }
      seen.add(String(page));
      const path = `/customers/${quoted(customerId)}/orders?page=${quoted(String(page))}`;
      const body = await apiRequest(call, "GET", path);
      const list = body && typeof body === "object" && !Array.isArray(body) ? (body.orders ?? []) : null;
      if (!Array.isArray(list)) {
        throw new ToolFailure(
          "transient",
          call.transientMessage("unavailable"),
          `GET ${path} answered 200 without an orders list`,
        );
      }
      orders.push(...list);
      pagesFetched += 1;
      page = body.next_page;
    }
  } catch (failure) {
    if (!(failure instanceof ToolFailure)) {
      throw failure;
    }
    // A failure after some pages arrived keeps them, and is still an error: never pass a
    // partial list off as the whole history. Nothing fetched is null, not [].
    if (pagesFetched > 0) {
      failure.partialResults = orders;
      failure.detail = `${failure.detail}; ${pagesFetched} page(s) with ${orders.length} order(s) fetched before`;
    }
    return typedError(failure, "search_orders", args, ["customer_id"]);
  }
  // No orders at all is a complete answer, and a success.
  return ok({ orders });
}

async function processRefund(args) {
  log("process_refund", JSON.stringify(args));
  let refund;
  try {
    // Validation first, order_id before amount: -20 is validation, not business.
    const orderId = requireOrderId(args);
    const amount = requireAmount(args);
    if (amount > REFUND_LIMIT) {
      // The policy, checked here without a request; the API's 422 says the same.
      throw new ToolFailure(
        "business",
        "Refunds above $500 need a manager's approval. I can ask a manager to approve " +
          "it, or refund $500 or less now.",
        `amount above the refund limit of ${REFUND_LIMIT}; no request sent`,
      );
    }
    const call = new Call("order_id", `order ${orderId}`, true);
    // One POST, never repeated here: a repeat could pay the refund twice.
    refund = await apiRequest(call, "POST", "/refunds", { order_id: orderId, amount });
  } catch (failure) {
    if (failure instanceof ToolFailure) {
      return typedError(failure, "process_refund", args, ["order_id", "amount"]);
    }
    throw failure;
  }
  return ok({ refund });
}

// Each argument is .optional() in its zod shape: McpServer checks the shape before the handler
// runs, and a required key would be answered with the SDK's own untyped text. The handlers check
// presence and format themselves; a wrong JSON type is still the SDK's to refuse.
const server = new McpServer({ name: "orders", version: "1.0.0" });

server.registerTool(
  "lookup_order",
  {
    description: "Look up one order by its id.",
    inputSchema: { order_id: z.string().optional().describe("The order id, e.g. ORD-8821.") },
  },
  lookupOrder,
);

server.registerTool(
  "search_orders",
  {
    description: "List every order of one customer, all pages.",
    inputSchema: { customer_id: z.string().optional().describe("The customer id, e.g. C-1042.") },
  },
  searchOrders,
);

server.registerTool(
  "process_refund",
  {
    description: "Refund an amount of one order. Refunds above 500 need a manager's approval.",
    inputSchema: {
      order_id: z.string().optional().describe("The order to refund, e.g. ORD-8821."),
      amount: z.number().optional().describe("The refund amount, more than 0."),
    },
  },
  processRefund,
);

// Node loads fetch's HTTP client on first use, which costs tens of milliseconds (far more on a
// busy machine) out of the first request's timeout. Load it now, before the handshake.
await fetch("data:,")
  .then((response) => response.arrayBuffer())
  .catch(() => {});

await server.connect(new StdioServerTransport());

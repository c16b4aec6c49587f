// The orders MCP server on the official TypeScript SDK: a reference solution for
// mcp-structured-errors, written the way the SDK's own documentation writes a server (McpServer,
// registerTool with a zod input shape, the stdio transport), with no private API.
//
// Every failure is a tool result with isError true and the typed payload
// {isError, errorCategory, isRetryable, retryAfterSeconds, explanation}. Three choices keep the
// SDK out of the way of that contract:
//   * each argument is z.string().optional(): the SDK validates the input shape before the
//     handler runs, and a required key would be answered with the SDK's own untyped text;
//   * the shape of an id (ORD- and digits) is checked in the handler, not with .regex(), for the
//     same reason;
//   * no outputSchema: the error results carry their own payload.
// One HTTP request per lookup or page, never a retry, logs on stderr only.

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import * as z from "zod";

// The template's shim is no longer the server, but importing it still warms fetch up: Node loads
// its HTTP client on the first request, which alone can outlast the 0.5 s timeout on a busy machine.
import "./mcp_shim.mjs";

function log(...parts) {
  console.error(...parts); // stderr: stdout carries JSON-RPC only
}

const API_URL = (process.env.ORDERS_API_URL ?? "").replace(/\/+$/, "");
const API_TOKEN = process.env.ORDERS_API_TOKEN ?? "";
let TIMEOUT_SECONDS = Number(process.env.ORDERS_API_TIMEOUT_SECONDS || 5);
if (!Number.isFinite(TIMEOUT_SECONDS) || TIMEOUT_SECONDS < 0) {
  log("ORDERS_API_TIMEOUT_SECONDS is not a number; using 5");
  TIMEOUT_SECONDS = 5;
}

const RETRYABLE = {
  auth: false,
  rate_limit: true,
  not_found: false,
  validation: false,
  transient: true,
};

const ORDER_ID = /^ORD-[0-9]{4,}$/;
const CUSTOMER_ID = /^C-[0-9]+$/;

const MAX_PAGES = 1000; // a guard against a service whose next_page never ends

/** A failure with its category, thrown below and turned into the typed payload. */
class ToolFailure extends Error {
  constructor(category, explanation, retryAfterSeconds = null) {
    super(explanation);
    this.name = "ToolFailure";
    this.category = category;
    this.explanation = explanation;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** A CallToolResult carrying payload in structuredContent and, as JSON text, in content. */
function result(payload, isError) {
  return {
    content: [{ type: "text", text: JSON.stringify(payload) }],
    structuredContent: payload,
    isError,
  };
}

function typedError(failure) {
  const payload = {
    isError: true,
    errorCategory: failure.category,
    isRetryable: RETRYABLE[failure.category],
    retryAfterSeconds: failure.retryAfterSeconds,
    explanation: failure.explanation,
  };
  log("error:", JSON.stringify(payload));
  return result(payload, true);
}

// -- validation (step 1) --------------------------------------------------------------------------

function requireArg(value, name, pattern, shape) {
  if (value === undefined || value === null) {
    throw new ToolFailure("validation", `${name} is missing; expected ${shape}.`);
  }
  if (!pattern.test(value)) {
    throw new ToolFailure("validation", `${name} ${JSON.stringify(value)} is malformed; expected ${shape}.`);
  }
  return value;
}

// -- Retry-After (step 3) -------------------------------------------------------------------------

/** Retry-After (RFC 9110 §10.2.3) as whole seconds >= 0, or null when absent or unreadable. */
function retryAfterSeconds(value) {
  if (value === null || value === undefined) {
    return null;
  }
  value = value.trim();
  if (/^[0-9]+$/.test(value)) {
    return Number.parseInt(value, 10);
  }
  const when = Date.parse(value); // IMF-fixdate, and the obsolete RFC 850 and asctime forms
  if (Number.isNaN(when)) {
    return null;
  }
  return Math.max(0, Math.round((when - Date.now()) / 1000));
}

// -- the Orders API (step 2) ----------------------------------------------------------------------

function describeBody(raw) {
  try {
    const body = JSON.parse(raw);
    if (body && typeof body === "object" && typeof body.error === "string") {
      return ": " + body.error;
    }
  } catch {
    // not JSON: nothing to add
  }
  return "";
}

function httpFailure(what, response, raw) {
  const status = response.status;
  const detail = describeBody(raw);
  if (status === 401 || status === 403) {
    return new ToolFailure("auth", `${status} from ${what}${detail}; the API token was refused, a person must renew it.`);
  }
  if (status === 404) {
    return new ToolFailure("not_found", `404 from ${what}${detail}; no such record.`);
  }
  if (status === 429) {
    const header = response.headers.get("retry-after"); // null when absent
    const hint = header !== null ? `Retry-After: ${header}` : "no Retry-After";
    return new ToolFailure("rate_limit", `429 from ${what}${detail}, ${hint}; wait before trying again.`, retryAfterSeconds(header));
  }
  if (status === 408 || (status >= 500 && status <= 599)) {
    // A 503 may state how long the outage lasts (RFC 9110 §10.2.3): carry that wait too.
    return new ToolFailure("transient", `${status} from ${what}${detail}; the service is temporarily unavailable.`, retryAfterSeconds(response.headers.get("retry-after")));
  }
  return new ToolFailure("validation", `unexpected ${status} from ${what}${detail}.`);
}

/** GET one resource: exactly one request, with the timeout, never retried. */
async function apiGet(path) {
  const what = "GET " + path;
  let response;
  let raw;
  try {
    response = await fetch(API_URL + path, {
      headers: { Authorization: "Bearer " + API_TOKEN, Accept: "application/json" },
      signal: AbortSignal.timeout(Math.round(TIMEOUT_SECONDS * 1000)),
    });
    raw = await response.text();
  } catch (error) {
    if (error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError")) {
      throw new ToolFailure("transient", `${what} timed out after ${TIMEOUT_SECONDS} s; the service is temporarily slow.`);
    }
    if (error instanceof TypeError) {
      // fetch's network errors: refused, unreachable, reset, dropped, cut short
      const cause = error.cause ? ` (${error.cause.code || error.cause.message || error.cause})` : "";
      throw new ToolFailure("transient", `${what} failed: ${error.message}${cause}; the service is temporarily unreachable.`);
    }
    throw error; // a bug in our own code: not a transient failure
  }
  if (!response.ok) {
    throw httpFailure(what, response, raw);
  }
  try {
    return JSON.parse(raw);
  } catch {
    throw new ToolFailure("transient", `${what} answered 200 with a body that is not JSON.`);
  }
}

// -- the tools ------------------------------------------------------------------------------------

async function lookupOrder({ order_id }) {
  log("lookup_order", JSON.stringify({ order_id }));
  try {
    const orderId = requireArg(order_id, "order_id", ORDER_ID, "ORD- and four or more digits, e.g. ORD-8821");
    const order = await apiGet("/orders/" + encodeURIComponent(orderId));
    return result({ order }, false);
  } catch (error) {
    if (error instanceof ToolFailure) {
      return typedError(error);
    }
    throw error;
  }
}

async function searchOrders({ customer_id }) {
  log("search_orders", JSON.stringify({ customer_id }));
  const orders = [];
  try {
    const customerId = requireArg(customer_id, "customer_id", CUSTOMER_ID, "C- and digits, e.g. C-1042");
    let page = 1;
    const seen = new Set();
    while (page !== null && page !== undefined) {
      if (seen.has(String(page)) || seen.size >= MAX_PAGES) {
        throw new ToolFailure("transient", `the orders of ${customerId} never reach a last page.`);
      }
      seen.add(String(page));
      const path = `/customers/${encodeURIComponent(customerId)}/orders?page=${encodeURIComponent(String(page))}`;
      const body = await apiGet(path);
      const list = body && typeof body === "object" && !Array.isArray(body) ? (body.orders ?? []) : null;
      if (!Array.isArray(list)) {
        throw new ToolFailure("transient", `GET ${path} answered 200 without an orders list.`);
      }
      orders.push(...list);
      page = body.next_page;
    }
  } catch (error) {
    if (error instanceof ToolFailure) {
      return typedError(error);
    }
    throw error;
  }
  return result({ orders }, false);
}

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

await server.connect(new StdioServerTransport());

// The orders MCP server: a reference solution for mcp-structured-errors.
//
// Every failure is a tool result with isError true and the typed payload
// {isError, errorCategory, isRetryable, retryAfterSeconds, explanation}; the client decides from
// the flags. One HTTP request per lookup or page, never a retry, logs on stderr only.

import { Server, log, ok, toolError } from "./mcp_shim.mjs";

const API_URL = (process.env.ORDERS_API_URL ?? "").replace(/\/+$/, "");
const API_TOKEN = process.env.ORDERS_API_TOKEN ?? "";
let TIMEOUT_SECONDS = Number(process.env.ORDERS_API_TIMEOUT_SECONDS || 5);
if (!Number.isFinite(TIMEOUT_SECONDS) || TIMEOUT_SECONDS < 0) {
  log("ORDERS_API_TIMEOUT_SECONDS is not a number; using 5");
  TIMEOUT_SECONDS = 5;
}

const server = new Server("orders", "1.0.0");

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

function typedError(failure) {
  const payload = {
    isError: true,
    errorCategory: failure.category,
    isRetryable: RETRYABLE[failure.category],
    retryAfterSeconds: failure.retryAfterSeconds,
    explanation: failure.explanation,
  };
  log("error:", JSON.stringify(payload));
  return toolError(payload);
}

// -- validation (step 1) --------------------------------------------------------------------------

function requireArg(args, name, pattern, shape) {
  const value = args[name];
  if (!Object.hasOwn(args, name) || value === null || value === undefined) {
    throw new ToolFailure("validation", `${name} is missing; expected ${shape}.`);
  }
  if (typeof value !== "string" || !pattern.test(value)) {
    throw new ToolFailure(
      "validation",
      `${name} ${JSON.stringify(value)} is malformed; expected ${shape}.`,
    );
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

function httpFailure(what, error) {
  const status = error.status;
  const detail = describeBody(error.body);
  if (status === 401 || status === 403) {
    return new ToolFailure(
      "auth",
      `${status} from ${what}${detail}; the API token was refused, a person must renew it.`,
    );
  }
  if (status === 404) {
    return new ToolFailure("not_found", `404 from ${what}${detail}; no such record.`);
  }
  if (status === 429) {
    const header = error.headers.get("retry-after"); // null when absent
    const seconds = retryAfterSeconds(header);
    const hint = header !== null ? `Retry-After: ${header}` : "no Retry-After";
    return new ToolFailure(
      "rate_limit",
      `429 from ${what}${detail}, ${hint}; wait before trying again.`,
      seconds,
    );
  }
  if (status === 408 || (status >= 500 && status <= 599)) {
    // A 503 may state how long the outage lasts (RFC 9110 §10.2.3): carry that wait too.
    return new ToolFailure(
      "transient",
      `${status} from ${what}${detail}; the service is temporarily unavailable.`,
      retryAfterSeconds(error.headers.get("retry-after")),
    );
  }
  return new ToolFailure("validation", `unexpected ${status} from ${what}${detail}.`);
}

function isTimeout(error) {
  return error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError");
}

/** GET one resource: exactly one request, with the timeout, never retried. */
async function apiGet(path) {
  const what = "GET " + path;
  let raw;
  try {
    const response = await fetch(API_URL + path, {
      headers: { Authorization: "Bearer " + API_TOKEN, Accept: "application/json" },
      signal: AbortSignal.timeout(Math.round(TIMEOUT_SECONDS * 1000)),
    });
    raw = await response.text();
    if (!response.ok) {
      throw new HttpError(response.status, response.headers, raw);
    }
  } catch (error) {
    if (error instanceof HttpError) {
      throw httpFailure(what, error);
    }
    if (isTimeout(error)) {
      throw new ToolFailure(
        "transient",
        `${what} timed out after ${TIMEOUT_SECONDS} s; the service is temporarily slow.`,
      );
    }
    if (error instanceof TypeError) {
      // fetch's network errors: refused, unreachable, reset, dropped, cut short
      const cause = error.cause ? ` (${error.cause.code || error.cause.message || error.cause})` : "";
      throw new ToolFailure(
        "transient",
        `${what} failed: ${error.message}${cause}; the service is temporarily unreachable.`,
      );
    }
    throw error; // a bug in our own code: let the shim report it, not file it as transient
  }
  try {
    return JSON.parse(raw);
  } catch {
    throw new ToolFailure("transient", `${what} answered 200 with a body that is not JSON.`);
  }
}

function quoted(value) {
  return encodeURIComponent(value);
}

// -- the tools ------------------------------------------------------------------------------------

// The arguments are declared with their types but not listed as "required": a schema check before
// the handler would answer a missing argument with untyped text. The handlers check it themselves.
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

async function lookupOrder(args) {
  log("lookup_order", JSON.stringify(args));
  let order;
  try {
    const orderId = requireArg(args, "order_id", ORDER_ID, "ORD- and four or more digits, e.g. ORD-8821");
    order = await apiGet("/orders/" + quoted(orderId));
  } catch (error) {
    if (error instanceof ToolFailure) {
      return typedError(error);
    }
    throw error;
  }
  return ok({ order });
}

async function searchOrders(args) {
  log("search_orders", JSON.stringify(args));
  const orders = [];
  try {
    const customerId = requireArg(args, "customer_id", CUSTOMER_ID, "C- and digits, e.g. C-1042");
    let page = 1;
    const seen = new Set();
    while (page !== null && page !== undefined) {
      if (seen.has(String(page)) || seen.size >= MAX_PAGES) {
        throw new ToolFailure("transient", `the orders of ${customerId} never reach a last page.`);
      }
      seen.add(String(page));
      const path = `/customers/${quoted(customerId)}/orders?page=${quoted(String(page))}`;
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
  return ok({ orders });
}

server.tool("lookup_order", "Look up one order by its id.", LOOKUP_ORDER_SCHEMA, lookupOrder);
server.tool(
  "search_orders",
  "List every order of one customer, all pages.",
  SEARCH_ORDERS_SCHEMA,
  searchOrders,
);

server.run();

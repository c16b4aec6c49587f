// The orders MCP server: a reference solution for mcp-engineering.
//
// Every failure of lookup_order is a tool result with isError true and the typed payload
// {isError, errorCategory, isRetryable, retryAfterSeconds}, in the four categories auth,
// rate_limit, transient and fatal; the client decides from the flags. Credentials come only from
// the environment that .mcp.json passes by ${VAR} reference. One HTTP request per call, never a
// retry, logs on stderr only.

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
  transient: true,
  fatal: false,
};

const ORDER_ID = /^ORD-[0-9]{4,}$/;

/**
 * A failure with its category, thrown below and turned into the typed payload.
 *
 * detail is for the log (stderr) only: the contract carries flags, not prose.
 */
class ToolFailure extends Error {
  constructor(category, detail, retryAfterSeconds = null) {
    super(detail);
    this.name = "ToolFailure";
    this.category = category;
    this.detail = detail;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

function typedError(failure) {
  const payload = {
    isError: true,
    errorCategory: failure.category,
    isRetryable: RETRYABLE[failure.category],
    retryAfterSeconds: failure.retryAfterSeconds,
  };
  log(`error: ${failure.detail} -> ${JSON.stringify(payload)}`);
  return toolError(payload);
}

function isHttpUrl(value) {
  return value.startsWith("http://") || value.startsWith("https://");
}

// -- configuration (step 2) -----------------------------------------------------------------------

/** Fail closed: with no URL or no token there is nothing sensible to send. */
function checkConfiguration() {
  const missing = [
    ["ORDERS_API_URL", API_URL],
    ["ORDERS_API_TOKEN", API_TOKEN],
  ]
    .filter(([, value]) => !value)
    .map(([name]) => name);
  if (missing.length > 0) {
    log(
      `${missing.join(" and ")} ${missing.length === 1 ? "is" : "are"} empty: pass ` +
        "credentials from .mcp.json as ${VAR} references (TASK.md, step 2). Exiting.",
    );
    process.exit(1);
  }
  if (!isHttpUrl(API_URL)) {
    // A bare "$ORDERS_API_URL" in .mcp.json is not expanded and arrives as text.
    log(
      `ORDERS_API_URL is ${JSON.stringify(API_URL)}, not an http(s) URL; every lookup will fail ` +
        "as fatal. Check .mcp.json: use ${ORDERS_API_URL}, with braces.",
    );
  }
}

// -- validation (step 3) --------------------------------------------------------------------------

function requireOrderId(args) {
  const value = args.order_id;
  if (!Object.hasOwn(args, "order_id") || value === null || value === undefined) {
    throw new ToolFailure("fatal", "order_id is missing; no request sent");
  }
  if (typeof value !== "string" || !ORDER_ID.test(value)) {
    throw new ToolFailure("fatal", `order_id ${JSON.stringify(value)} is malformed; no request sent`);
  }
  return value;
}

// -- Retry-After (step 4) -------------------------------------------------------------------------

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

// -- the Orders API (step 3) ----------------------------------------------------------------------

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

function httpFailure(what, error) {
  const status = error.status;
  const code = errorCode(error);
  const detail = `${what}: ${status}` + (code ? ` ${code}` : "");
  if (status === 401 || status === 403) {
    return new ToolFailure("auth", detail + "; the credential must be renewed");
  }
  if (status === 429) {
    const header = error.headers.get("retry-after"); // null when absent
    const seconds = retryAfterSeconds(header);
    const hint = header !== null ? `Retry-After: ${header}` : "no Retry-After";
    return new ToolFailure("rate_limit", `${detail}, ${hint}`, seconds);
  }
  if (status === 408 || (status >= 500 && status <= 599)) {
    // A 503 may state how long the outage lasts (RFC 9110 §10.2.3): carry that wait too.
    return new ToolFailure("transient", detail, retryAfterSeconds(error.headers.get("retry-after")));
  }
  // 404 and any other 4xx: the same call will get the same answer.
  return new ToolFailure("fatal", detail);
}

function isTimeout(error) {
  return error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError");
}

/** GET one resource: exactly one request, with the timeout, never retried. */
async function apiGet(path) {
  const what = "GET " + path;
  if (!isHttpUrl(API_URL)) {
    throw new ToolFailure("fatal", `ORDERS_API_URL ${JSON.stringify(API_URL)} is not an http(s) URL`);
  }
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
      throw new ToolFailure("transient", `${what} timed out after ${TIMEOUT_SECONDS} s`);
    }
    if (error instanceof TypeError) {
      // fetch's network errors: refused, unreachable, reset, dropped, cut short
      const cause = error.cause ? ` (${error.cause.code || error.cause.message || error.cause})` : "";
      throw new ToolFailure("transient", `${what} failed: ${error.message}${cause}`);
    }
    throw error; // a bug in our own code: let the shim report it, not file it as transient
  }
  try {
    return JSON.parse(raw);
  } catch {
    throw new ToolFailure("transient", `${what} answered 200 with a body that is not JSON`);
  }
}

// -- the tool -------------------------------------------------------------------------------------

// order_id is declared with its type but not listed as "required": a schema check before the
// handler would answer a missing argument with untyped text. The handler checks it itself.
const LOOKUP_ORDER_SCHEMA = {
  type: "object",
  properties: {
    order_id: { type: "string", description: "The order id, e.g. ORD-8821." },
  },
};

async function lookupOrder(args) {
  log("lookup_order", JSON.stringify(args));
  let order;
  try {
    const orderId = requireOrderId(args);
    order = await apiGet("/orders/" + encodeURIComponent(orderId));
  } catch (failure) {
    if (failure instanceof ToolFailure) {
      return typedError(failure);
    }
    throw failure;
  }
  return ok({ order });
}

server.tool("lookup_order", "Look up one order by its id.", LOOKUP_ORDER_SCHEMA, lookupOrder);

checkConfiguration();

// Node loads fetch's HTTP client on first use, which costs tens of milliseconds (far more on a
// busy machine) out of the first request's timeout. Load it now, before the handshake.
await fetch("data:,")
  .then((response) => response.arrayBuffer())
  .catch(() => {});

server.run();

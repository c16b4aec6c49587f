// The orders MCP server: a reference solution for validation-retry-error-feedback.
//
// create_return checks every argument against its input schema before it sends anything, and
// answers all the violations at once as a tool result with isError true and the typed payload
// {isError, errorCategory, isRetryable, message, violations}: each violation names the field, the
// JSON Schema keyword that failed (constraint), what would pass with a valid example (expected)
// and the value sent (received, redacted when it looks like a secret). A valid call is one
// POST /returns; the failures a model cannot repair by changing its arguments are not_found,
// business and auth, and transient (5xx, a timeout, a dropped connection) is the only retryable
// one. Logs on stderr.

import { Server, log, ok, toolError } from "./mcp_shim.mjs";

const API_URL = (process.env.ORDERS_API_URL ?? "").replace(/\/+$/, "");
const API_TOKEN = process.env.ORDERS_API_TOKEN ?? "";
let TIMEOUT_SECONDS = Number(process.env.ORDERS_API_TIMEOUT_SECONDS || 5);
if (!Number.isFinite(TIMEOUT_SECONDS) || TIMEOUT_SECONDS < 0) {
  log("ORDERS_API_TIMEOUT_SECONDS is not a number; using 5");
  TIMEOUT_SECONDS = 5;
}

const server = new Server("orders", "1.0.0");

// isRetryable: the same call, sent again unchanged, may succeed. A validation error is not
// retryable; that the model can repair it is what errorCategory and violations say.
const RETRYABLE = {
  validation: false,
  not_found: false,
  business: false,
  auth: false,
  transient: true,
};

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

/**
 * A failure with its category, thrown below and turned into the typed payload.
 *
 * message is for the model (and whoever it answers); detail is for the log only.
 */
class ToolFailure extends Error {
  constructor(category, message, detail = null, violations = []) {
    super(message);
    this.name = "ToolFailure";
    this.category = category;
    this.message = message;
    this.detail = detail;
    this.violations = violations;
  }
}

function typedError(failure) {
  const payload = {
    isError: true,
    errorCategory: failure.category,
    isRetryable: RETRYABLE[failure.category],
    message: failure.message,
    violations: failure.violations,
  };
  log("error:", JSON.stringify(payload), "|", failure.detail ?? "");
  return toolError(payload);
}

// -- secrets (step 4) -----------------------------------------------------------------------------

const SECRET_PREFIXES = ["sk_", "sk-", "ghp_", "gho_", "github_pat_", "xoxb-", "xoxp-", "AKIA"];

// Unicode's White_Space characters (Go's unicode.IsSpace): one definition in every language.
// JavaScript's \s differs from it (it adds U+FEFF and leaves out U+0085).
const WHITE_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u;

const REDACTED = "[redacted: looks like a secret]";

/** A string a server must never echo: a known key prefix, or 32+ characters without spaces. */
function isSecretLike(value) {
  if (typeof value !== "string") {
    return false;
  }
  if (SECRET_PREFIXES.some((prefix) => value.startsWith(prefix))) {
    return true;
  }
  return [...value].length >= 32 && !WHITE_SPACE.test(value);
}

/** value with every secret-like string in it (object keys included) replaced. */
function redact(value) {
  if (isSecretLike(value)) {
    return REDACTED;
  }
  if (Array.isArray(value)) {
    return value.map(redact);
  }
  if (typeof value === "object" && value !== null) {
    // Object.fromEntries defines own keys, so a key named __proto__ stays a key.
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redact(k), redact(v)]));
  }
  return value;
}

// -- validation against the input schema (steps 2 and 3) ------------------------------------------

/** One @, a non-empty name before it, a domain with a dot after it, no white space. */
function isEmail(value) {
  const parts = value.split("@");
  return !WHITE_SPACE.test(value) && parts.length === 2 && parts[0] !== "" && parts[1].includes(".");
}

const FORMATS = { email: isEmail };

function hasType(value, kind) {
  switch (kind) {
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "integer": // JSON Schema: a number with no fractional part (3.0 counts)
      return Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
  }
  return true;
}

/** The first keyword of a property's schema that value fails, or null when it passes. */
function failedKeyword(schema, value) {
  if ("type" in schema && !hasType(value, schema.type)) {
    return "type";
  }
  if ("enum" in schema && !schema.enum.includes(value)) {
    return "enum";
  }
  if (typeof value === "string") {
    // JSON Schema lengths count characters (code points), not UTF-16 units.
    const length = [...value].length;
    if ("pattern" in schema && !new RegExp(schema.pattern, "u").test(value)) {
      return "pattern";
    }
    if ("format" in schema && Object.hasOwn(FORMATS, schema.format) && !FORMATS[schema.format](value)) {
      return "format";
    }
    if ("minLength" in schema && length < schema.minLength) {
      return "minLength";
    }
    if ("maxLength" in schema && length > schema.maxLength) {
      return "maxLength";
    }
  } else if (typeof value === "number") {
    if ("minimum" in schema && value < schema.minimum) {
      return "minimum";
    }
    if ("maximum" in schema && value > schema.maximum) {
      return "maximum";
    }
  }
  return null;
}

const ARTICLES = { string: "a string", integer: "an integer", number: "a number", boolean: "true or false" };

/**
 * What passes a property's schema, in words a model can act on, with a valid example:
 * 'a string matching ^ORD-[0-9]{4,8}$, for example "ORD-8821" or "ORD-104427"'.
 */
function describe(schema) {
  if ("enum" in schema) {
    return "one of " + schema.enum.map((v) => JSON.stringify(v)).join(", ");
  }
  let text =
    schema.format === "email"
      ? "an email address: one @, a name before it, a domain with a dot after it, no spaces"
      : (ARTICLES[schema.type] ?? "a value");
  if ("pattern" in schema) {
    text += " matching " + schema.pattern;
  }
  if ("minimum" in schema && "maximum" in schema) {
    text += ` from ${schema.minimum} to ${schema.maximum}`;
  } else if ("minimum" in schema) {
    text += ` of at least ${schema.minimum}`;
  } else if ("maximum" in schema) {
    text += ` of at most ${schema.maximum}`;
  }
  if ("minLength" in schema && "maxLength" in schema) {
    text += ` of ${schema.minLength} to ${schema.maxLength} characters`;
  } else if ("minLength" in schema) {
    text += ` of at least ${schema.minLength} characters`;
  } else if ("maxLength" in schema) {
    text += ` of at most ${schema.maxLength} characters`;
  }
  if (schema.examples?.length) {
    text += ", for example " + schema.examples.map((v) => JSON.stringify(v)).join(" or ");
  }
  return text;
}

/**
 * Every violation of args against an object schema, one per broken argument: declared arguments
 * in the schema's order, then unknown ones by name.
 */
function violationsOf(schema, args) {
  const properties = schema.properties;
  const found = [];
  for (const [name, prop] of Object.entries(properties)) {
    if (!Object.hasOwn(args, name)) {
      if ((schema.required ?? []).includes(name)) {
        found.push({ field: name, constraint: "required", expected: `${name} is required: ${describe(prop)}` });
      }
      continue;
    }
    const keyword = failedKeyword(prop, args[name]);
    if (keyword !== null) {
      found.push({ field: name, constraint: keyword, expected: describe(prop), received: redact(args[name]) });
    }
  }
  if (schema.additionalProperties === false) {
    const allowed = Object.keys(properties).join(", ");
    const unknown = Object.keys(args).filter((name) => !Object.hasOwn(properties, name));
    for (const name of unknown.sort()) {
      found.push({
        field: redact(name),
        constraint: "additionalProperties",
        expected: `leave this argument out; the arguments are ${allowed}`,
        received: redact(args[name]),
      });
    }
  }
  return found;
}

function validationFailure(violations) {
  const listed = violations.map((v) => `${v.field} (${v.constraint})`).join("; ");
  const noun = violations.length === 1 ? "argument needs" : "arguments need";
  return new ToolFailure(
    "validation",
    `No return was created: ${violations.length} ${noun} fixing: ${listed}. Correct each one as ` +
      "its violation's expected says, then call create_return again.",
    "invalid arguments, no request sent",
    violations,
  );
}

// -- the Orders API (steps 1 and 5) ---------------------------------------------------------------

/** The "error" string of an HTTP error's JSON body, or "". */
function errorCode(raw) {
  try {
    const body = JSON.parse(raw);
    if (body && typeof body === "object" && typeof body.error === "string") {
      return body.error;
    }
  } catch {
    // not JSON: no code
  }
  return "";
}

const TRANSIENT_MESSAGE =
  "The returns service is having a temporary problem and no return was confirmed. The same " +
  "call may succeed in a moment.";

function httpFailure(orderId, status, raw) {
  const detail = `POST /returns: ${status} ${errorCode(raw)}`.trim();
  if (status === 401 || status === 403) {
    return new ToolFailure(
      "auth",
      "The returns service refused this server's credentials, so no return was created. A " +
        "person has to renew the access; changing the arguments will not help.",
      detail,
    );
  }
  if (status === 404) {
    return new ToolFailure(
      "not_found",
      `There is no order ${orderId}, so no return was created. Ask the customer for the right ` +
        "order number; the same call will fail again.",
      detail,
    );
  }
  if (status === 408 || status === 429 || (status >= 500 && status <= 599)) {
    return new ToolFailure("transient", TRANSIENT_MESSAGE, detail);
  }
  const message =
    errorCode(raw) === "return_window_closed"
      ? `The return window of order ${orderId} has closed, so no return was created. This is ` +
        "the shop's rule: offer the customer another option."
      : `The returns service refused a return for order ${orderId} under its rules, so none ` +
        "was created. Sending the same call again will not change that.";
  // 409, 422 and any other refusal: a rule of the business, not something to retry or repair.
  return new ToolFailure("business", message, detail);
}

function isTimeout(error) {
  return error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError");
}

/**
 * POST /returns with the arguments as its body: exactly one request, with the timeout, never
 * retried. Returns the created return.
 */
async function postReturn(args) {
  let status;
  let raw;
  try {
    const response = await fetch(API_URL + "/returns", {
      method: "POST",
      headers: {
        Authorization: "Bearer " + API_TOKEN,
        Accept: "application/json",
        "Content-Type": "application/json",
      },
      body: JSON.stringify(args),
      signal: AbortSignal.timeout(Math.round(TIMEOUT_SECONDS * 1000)),
    });
    status = response.status;
    raw = await response.text();
  } catch (error) {
    if (isTimeout(error)) {
      throw new ToolFailure("transient", TRANSIENT_MESSAGE, `POST /returns timed out after ${TIMEOUT_SECONDS} s`);
    }
    if (error instanceof TypeError) {
      // fetch's network errors: refused, unreachable, reset, dropped, cut short
      const cause = error.cause ? ` (${error.cause.code || error.cause.message || error.cause})` : "";
      throw new ToolFailure("transient", TRANSIENT_MESSAGE, `POST /returns failed: ${error.message}${cause}`);
    }
    throw error; // a bug in our own code: let the shim report it, not file it as transient
  }
  if (status >= 400) {
    throw httpFailure(args.order_id, status, raw);
  }
  let created = null;
  try {
    created = JSON.parse(raw);
  } catch {
    // checked below
  }
  if (typeof created !== "object" || created === null || Array.isArray(created)) {
    throw new ToolFailure("transient", TRANSIENT_MESSAGE, "POST /returns: answer is not an object");
  }
  return created;
}

// -- the tool -------------------------------------------------------------------------------------

server.tool(
  "create_return",
  "Open a return for items of one order and email the customer a return label.",
  CREATE_RETURN_SCHEMA,
  async (args) => {
    log("create_return", JSON.stringify(redact(args)));
    try {
      // Every violation at once, and nothing sent while there is one.
      const violations = violationsOf(CREATE_RETURN_SCHEMA, args);
      if (violations.length > 0) {
        throw validationFailure(violations);
      }
      return ok({ return: await postReturn(args) });
    } catch (error) {
      if (error instanceof ToolFailure) {
        return typedError(error);
      }
      throw error;
    }
  },
);

server.run();

// The client side: a reference retry policy for mcp-structured-errors.
//
// kata_client_shim.mjs runs this file for the grader and calls callWithRetry once per scenario.

import { run } from "./kata_client_shim.mjs";

function isNumber(value) {
  // JSON numbers only: "17" is a string, true is a boolean.
  return typeof value === "number" && Number.isFinite(value);
}

async function callWithRetry(invoke, sleep, log, request, policy) {
  const maxRetries = policy.maxRetries ?? 0;
  const baseDelay = policy.baseDelaySeconds ?? 1;
  const multiplier = policy.multiplier ?? 2;
  const categories = policy.categories ?? {};
  const escalate = policy.escalate ?? [];

  let retries = 0;
  for (;;) {
    const result = await invoke(request);

    // Rule 1: isError absent or false is a success, true an error; any other value is a
    // malformed result, logged as unknown and never read as a success.
    const isError = typeof result === "object" && result !== null && "isError" in result ? result.isError : false;
    if (isError === false) {
      return { action: "success", category: null, result };
    }
    if (isError !== true) {
      log("unknown", `malformed result (isError=${JSON.stringify(isError)}); aborting`);
      return { action: "abort", category: "unknown", result };
    }

    const category = result.errorCategory;
    const known = typeof category === "string";

    // Rule 2: escalation comes before any retry decision.
    if (known && escalate.includes(category)) {
      return { action: "escalate", category, result };
    }

    // Rule 3: an error we cannot classify is logged and never retried.
    if (!known || !Object.hasOwn(categories, category)) {
      log(
        "unknown",
        `error without a known category (errorCategory=${JSON.stringify(category) ?? "missing"}); aborting`,
      );
      return { action: "abort", category: "unknown", result };
    }

    // Rule 4: both the server's flag and the policy must allow a retry.
    if (!(result.isRetryable === true && categories[category] === true)) {
      return { action: "abort", category, result };
    }

    // Rule 6: at most maxRetries retries; the last failure ends it at once.
    if (retries >= maxRetries) {
      return { action: "exhausted", category, result };
    }

    // Rule 5: the server's hint when it gave one, else exponential backoff (no jitter here).
    retries += 1;
    const hint = result.retryAfterSeconds;
    if (isNumber(hint)) {
      await sleep(hint);
    } else {
      await sleep(baseDelay * multiplier ** (retries - 1));
    }
    // Rule 7 holds by construction: nothing above reads explanation.
  }
}

run(callWithRetry);

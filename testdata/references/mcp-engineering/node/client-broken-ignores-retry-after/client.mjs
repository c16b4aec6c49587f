// The client side: a BROKEN reference retry policy for mcp-engineering.
//
// It is correct/client.mjs with one fault, marked FAULT below:
// it always sleeps the exponential backoff and ignores retryAfterSeconds.

import { run } from "./kata_client_shim.mjs";

async function callWithRetry(invoke, sleep, log, request, policy) {
  const maxRetries = policy.maxRetries ?? 0;
  const baseDelay = policy.baseDelaySeconds ?? 1;
  const multiplier = policy.multiplier ?? 2;
  const categories = policy.categories ?? {};
  const escalate = policy.escalate ?? [];

  let retries = 0;
  for (;;) {
    const result = await invoke(request);

    // Rule 1: only JSON true is an error.
    if (typeof result !== "object" || result === null || result.isError !== true) {
      return { action: "success", category: null, result };
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

    // Rule 5, broken: always exponential backoff.
    retries += 1;
    await sleep(baseDelay * multiplier ** (retries - 1)); // FAULT: retryAfterSeconds is ignored
    // Rule 7 holds by construction: nothing above reads explanation.
  }
}

run(callWithRetry);

// The client side: a reference repair loop for validation-retry-error-feedback.
//
// kata_repair_shim.mjs runs this file for the grader and calls callWithRepair once per scenario.

import { run } from "./kata_repair_shim.mjs";

const isNumber = (value) => typeof value === "number" && Number.isFinite(value);

/** Equal as JSON values (objects key by key, whatever their order). */
function sameJSON(a, b) {
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") {
    return a === b;
  }
  if (Array.isArray(a) !== Array.isArray(b)) {
    return false;
  }
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length &&
    keys.every((k) => Object.hasOwn(b, k) && sameJSON(a[k], b[k]));
}

async function callWithRepair(invoke, propose, sleep, log, request, policy) {
  const maxRepairs = policy.maxRepairs ?? 0;
  const maxRetries = policy.maxRetries ?? 0;
  const baseDelay = policy.baseDelaySeconds ?? 1;
  const multiplier = policy.multiplier ?? 2;
  const categories = policy.categories ?? {};

  let repairs = 0; // the two budgets are counted over the whole call and never reset
  let retries = 0;
  for (;;) {
    const result = await invoke(request);

    // Rule 1: isError absent or false is a success; anything but true is malformed.
    const isError = result !== null && typeof result === "object" && Object.hasOwn(result, "isError")
      ? result.isError
      : false;
    if (isError === false) {
      return { action: "success", category: null, result };
    }
    if (isError !== true) {
      log("unknown", `malformed result (isError=${JSON.stringify(isError)}); aborting`);
      return { action: "abort", category: "unknown", result };
    }

    // Rule 2: an error we cannot classify is logged and never repaired or retried.
    const category = result.errorCategory;
    if (typeof category !== "string" || !Object.hasOwn(categories, category)) {
      log("unknown", `error without a known category (errorCategory=${JSON.stringify(category)}); aborting`);
      return { action: "abort", category: "unknown", result };
    }

    // Rule 3: a validation error goes back to the model, within the repair budget.
    if (category === "validation") {
      if (repairs >= maxRepairs) {
        return { action: "exhausted", category, result };
      }
      repairs += 1;
      const proposal = await propose(request, result);
      if (sameJSON(proposal, request.arguments)) {
        return { action: "abort", category, result }; // the model is stuck
      }
      request = { tool: request.tool, arguments: proposal };
      continue;
    }

    // Rule 4: a retryable error is retried unchanged, within the retry budget.
    if (result.isRetryable === true && categories[category] === true) {
      if (retries >= maxRetries) {
        return { action: "exhausted", category, result };
      }
      retries += 1;
      const hint = result.retryAfterSeconds;
      await sleep(isNumber(hint) ? hint : baseDelay * multiplier ** (retries - 1));
      continue;
    }

    // Rule 5: everything else stops. Rule 6 holds by construction: nothing reads message.
    return { action: "abort", category, result };
  }
}

run(callWithRepair);

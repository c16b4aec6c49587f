// The client side: your repair loop. It lives here, in code, not in the model.
//
// kata_repair_shim.mjs (you need not touch it) runs this file for the grader and calls
// callWithRepair once per scenario.

import { run } from "./kata_repair_shim.mjs";

/**
 * Call a tool, let the model repair invalid arguments, and know when to stop.
 *
 * `await invoke(request)` returns the tool result's payload (an object).
 * `await propose(request, feedback)` hands the failed request and its payload to the model and
 * returns the model's next arguments (an object). `await sleep(seconds)` waits.
 * `log(category, message)` writes a log line. request is `{tool, arguments}`. policy looks like:
 *
 *     {"maxRepairs": 2, "maxRetries": 2, "baseDelaySeconds": 1, "multiplier": 2,
 *      "categories": {"validation": false, "not_found": false, "business": false,
 *                     "auth": false, "transient": true}}
 *
 * Return { action, category, result }: action is "success", "abort" or "exhausted"; category is
 * the payload's errorCategory as you classified it ("unknown" for rules 1 and 2, null for
 * success); result is the last payload invoke returned.
 *
 * After each invoke, in this order:
 *
 * 1. isError absent or false -> "success". isError true is an error. Any other value ("true",
 *    1, null) is a malformed result: log(...) it with category "unknown", then "abort" with
 *    category "unknown".
 * 2. errorCategory missing or not a key of policy.categories -> log(...) it with category
 *    "unknown", then "abort" with category "unknown".
 * 3. errorCategory "validation": while fewer than maxRepairs repairs were made, call
 *    propose(request, payload) once. If the proposed arguments equal the arguments you just
 *    sent (as JSON values), "abort" with category "validation" at once: the model is stuck.
 *    Otherwise invoke { tool: the same tool, arguments: the proposal }. With maxRepairs repairs
 *    made (0 included), "exhausted" with category "validation", without a propose. isRetryable
 *    plays no part here: the same call would fail the same way; the model can fix it.
 * 4. isRetryable === true AND policy.categories[category] === true -> sleep once (exactly
 *    retryAfterSeconds when it is a number, else baseDelaySeconds * multiplier ** (r - 1), r
 *    counting retries), then invoke the same request again. With maxRetries retries made,
 *    "exhausted" with that category, without a sleep.
 * 5. Anything else (not_found, business, auth, a transient error the flags do not let you
 *    retry) -> "abort" with its category: no propose, no retry.
 * 6. The message text never changes a decision: same flags, same outcome.
 *
 * The two budgets, repairs and retries, are counted over the whole call and never reset; one
 * never spends the other.
 *
 * Careful with JSON types: "true" is truthy and so is 1. Compare with `=== true`, check numbers
 * with `typeof x === "number"`, and test keys with Object.hasOwn(obj, key). Two objects are
 * never === each other: compare the arguments by their JSON values.
 */
async function callWithRepair(invoke, propose, sleep, log, request, policy) {
  // TODO(step 6): implement the six rules above.
  throw new Error("callWithRepair is not written yet (TASK.md, step 6)");
}

run(callWithRepair);

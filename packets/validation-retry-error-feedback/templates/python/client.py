"""The client side: your repair loop. It lives here, in code, not in the model.

kata_repair_shim.py (you need not touch it) runs this file for the grader and calls
call_with_repair once per scenario.
"""

import kata_repair_shim


def call_with_repair(invoke, propose, sleep, log, request, policy):
    """Call a tool, let the model repair invalid arguments, and know when to stop.

    invoke(request) returns the tool result's payload (a dict). propose(request, feedback)
    hands the failed request and its payload to the model and returns the model's next
    arguments (a dict). sleep(seconds) waits. log(category, message) writes a log line.
    request is {"tool": ..., "arguments": {...}}. policy looks like:

        {"maxRepairs": 2, "maxRetries": 2, "baseDelaySeconds": 1, "multiplier": 2,
         "categories": {"validation": False, "not_found": False, "business": False,
                        "auth": False, "transient": True}}

    Return (action, category, result): action is "success", "abort" or "exhausted"; category is
    the payload's errorCategory as you classified it ("unknown" for rules 1 and 2, None for
    success); result is the last payload invoke returned.

    After each invoke, in this order:

    1. isError absent or false -> "success". isError true is an error. Any other value ("true",
       1, null) is a malformed result: log(...) it with category "unknown", then "abort" with
       category "unknown".
    2. errorCategory missing or not a key of policy["categories"] -> log(...) it with category
       "unknown", then "abort" with category "unknown".
    3. errorCategory "validation": while fewer than maxRepairs repairs were made, call
       propose(request, payload) once. If the proposed arguments equal the arguments you just
       sent, "abort" with category "validation" at once: the model is stuck. Otherwise invoke
       {"tool": the same tool, "arguments": the proposal}. With maxRepairs repairs made (0
       included), "exhausted" with category "validation", without a propose. isRetryable plays
       no part here: the same call would fail the same way; the model can fix it.
    4. isRetryable JSON true AND policy["categories"][category] true -> sleep once (exactly
       retryAfterSeconds when it is a number, else baseDelaySeconds * multiplier ** (r - 1), r
       counting retries), then invoke the same request again. With maxRetries retries made,
       "exhausted" with that category, without a sleep.
    5. Anything else (not_found, business, auth, a transient error the flags do not let you
       retry) -> "abort" with its category: no propose, no retry.
    6. The message text never changes a decision: same flags, same outcome.

    The two budgets, repairs and retries, are counted over the whole call and never reset;
    one never spends the other.

    Careful with JSON types: True == 1 in Python, and "true" is truthy. Compare flags with
    `is True`; bool is a subclass of int.
    """
    # TODO(step 6): implement the six rules above.
    raise NotImplementedError("call_with_repair is not written yet (TASK.md, step 6)")


if __name__ == "__main__":
    kata_repair_shim.run(call_with_repair)

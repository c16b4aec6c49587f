"""The client side: your retry policy. It lives here, in code, not in the model.

kata_client_shim.py (you need not touch it) runs this file for the grader and calls
call_with_retry once per scenario.
"""

import kata_client_shim


def call_with_retry(invoke, sleep, log, request, policy):
    """Call a tool, retrying the way the server's flags and the policy say.

    invoke(request) returns the tool result's payload (a dict). sleep(seconds) waits.
    log(category, message) writes a log line. policy looks like:

        {"maxRetries": 3, "baseDelaySeconds": 1, "multiplier": 2,
         "categories": {"auth": False, "rate_limit": True,
                        "transient": True, "fatal": False},
         "escalate": ["auth"]}

    Return (action, category, result): action is "success", "escalate", "abort" or "exhausted";
    category is the payload's errorCategory as you classified it ("unknown" for rule 3, None for
    success); result is the last payload invoke returned.

    After each invoke, in this order:

    1. isError absent or false -> "success", whatever else the payload says. isError true is an
       error even when the payload also carries data. Any other value ("true", 1, null) is a
       malformed result: log(...) it with category "unknown", then "abort" with category "unknown".
    2. errorCategory is in policy["escalate"] -> "escalate" at once.
    3. errorCategory is missing or not a key of policy["categories"] -> log(...) it with category
       "unknown", then "abort" with category "unknown".
    4. Retry only when BOTH isRetryable is JSON true AND policy["categories"][category] is true
       (you may harden the server's flag, never relax it); otherwise "abort".
    5. Before retry r (r = 1, 2, ...) call sleep once: exactly retryAfterSeconds when it is a
       number, in any category (the stated wait replaces the backoff for that retry), else baseDelaySeconds * multiplier ** (r - 1), i.e. 1, 2, 4 ... No jitter here
       (the grader checks exact sleeps; in production, add jitter).
    6. At most maxRetries retries (maxRetries + 1 invokes). When the last allowed attempt fails,
       "exhausted" at once (no sleep after it), with that payload. maxRetries 0 means one invoke
       and no retry, never "unlimited".
    7. No text in the payload changes a decision: same flags, same invokes, sleeps and outcome.

    Pass request to invoke unchanged every time, and keep one attempt counter per call that
    nothing inside the loop resets.

    Careful with JSON types: True == 1 in Python, and "true" is truthy. Compare with `is True`,
    and remember that bool is a subclass of int.
    """
    # TODO(step 6): implement the seven rules above.
    raise NotImplementedError("call_with_retry is not written yet (TASK.md, step 6)")


if __name__ == "__main__":
    kata_client_shim.run(call_with_retry)

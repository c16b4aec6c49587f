"""The client side: a reference retry policy for mcp-engineering.

kata_client_shim.py runs this file for the grader and calls call_with_retry once per scenario.
"""

import kata_client_shim


def is_number(value):
    # bool is a subclass of int in Python, but JSON true is not a number.
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def call_with_retry(invoke, sleep, log, request, policy):
    max_retries = policy.get("maxRetries", 0)
    base_delay = policy.get("baseDelaySeconds", 1)
    multiplier = policy.get("multiplier", 2)
    categories = policy.get("categories") or {}
    escalate = policy.get("escalate") or []

    retries = 0
    while True:
        result = invoke(request)

        # Rule 1: isError absent or false is a success, true an error; any other value is a
        # malformed result, logged as unknown and never read as a success.
        is_error = result.get("isError", False) if isinstance(result, dict) else False
        if is_error is False:
            return "success", None, result
        if is_error is not True:
            log("unknown", f"malformed result (isError={is_error!r}); aborting")
            return "abort", "unknown", result

        category = result.get("errorCategory")
        known = isinstance(category, str)

        # Rule 2: escalation comes before any retry decision.
        if known and category in escalate:
            return "escalate", category, result

        # Rule 3: an error we cannot classify is logged and never retried.
        if not known or category not in categories:
            log("unknown", f"error without a known category (errorCategory={category!r}); aborting")
            return "abort", "unknown", result

        # Rule 4: both the server's flag and the policy must allow a retry.
        if not (result.get("isRetryable") is True and categories[category] is True):
            return "abort", category, result

        # Rule 6: at most max_retries retries; the last failure ends it at once.
        if retries >= max_retries:
            return "exhausted", category, result

        # Rule 5: the server's hint when it gave one, else exponential backoff (no jitter here).
        retries += 1
        hint = result.get("retryAfterSeconds")
        if is_number(hint):
            sleep(hint)
        else:
            sleep(base_delay * multiplier ** (retries - 1))
        # Rule 7 holds by construction: nothing above reads any text of the payload.


if __name__ == "__main__":
    kata_client_shim.run(call_with_retry)

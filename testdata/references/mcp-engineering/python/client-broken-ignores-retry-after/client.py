"""The client side: a BROKEN reference retry policy for mcp-engineering.

It is correct/client.py with one fault, marked FAULT below:
it always sleeps the exponential backoff and ignores retryAfterSeconds.
"""

import kata_client_shim


def call_with_retry(invoke, sleep, log, request, policy):
    max_retries = policy.get("maxRetries", 0)
    base_delay = policy.get("baseDelaySeconds", 1)
    multiplier = policy.get("multiplier", 2)
    categories = policy.get("categories") or {}
    escalate = policy.get("escalate") or []

    retries = 0
    while True:
        result = invoke(request)

        # Rule 1: only JSON true is an error.
        if not isinstance(result, dict) or result.get("isError") is not True:
            return "success", None, result

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

        # Rule 5, broken: always exponential backoff.
        retries += 1
        sleep(base_delay * multiplier ** (retries - 1))  # FAULT: retryAfterSeconds is ignored
        # Rule 7 holds by construction: nothing above reads explanation.


if __name__ == "__main__":
    kata_client_shim.run(call_with_retry)

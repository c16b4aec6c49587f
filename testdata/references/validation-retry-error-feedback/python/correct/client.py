"""The client side: a reference repair loop for validation-retry-error-feedback.

kata_repair_shim.py runs this file for the grader and calls call_with_repair once per scenario.
"""

import kata_repair_shim


def is_number(value):
    # bool is a subclass of int in Python, but JSON true is not a number.
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def same_json(a, b):
    """Equal as JSON values: True is not 1 here, as it is for Python's ==."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if is_number(a) and is_number(b):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def call_with_repair(invoke, propose, sleep, log, request, policy):
    max_repairs = policy.get("maxRepairs", 0)
    max_retries = policy.get("maxRetries", 0)
    base_delay = policy.get("baseDelaySeconds", 1)
    multiplier = policy.get("multiplier", 2)
    categories = policy.get("categories") or {}

    repairs = 0  # the two budgets are counted over the whole call and never reset
    retries = 0
    while True:
        result = invoke(request)

        # Rule 1: isError absent or false is a success; anything but true is malformed.
        is_error = result.get("isError", False) if isinstance(result, dict) else False
        if is_error is False:
            return "success", None, result
        if is_error is not True:
            log("unknown", f"malformed result (isError={is_error!r}); aborting")
            return "abort", "unknown", result

        # Rule 2: an error we cannot classify is logged and never repaired or retried.
        category = result.get("errorCategory")
        if not isinstance(category, str) or category not in categories:
            log("unknown", f"error without a known category (errorCategory={category!r}); aborting")
            return "abort", "unknown", result

        # Rule 3: a validation error goes back to the model, within the repair budget.
        if category == "validation":
            if repairs >= max_repairs:
                return "exhausted", category, result
            repairs += 1
            arguments = propose(request, result)
            if same_json(arguments, request.get("arguments")):
                return "abort", category, result  # the model is stuck: asking again will not help
            request = {"tool": request.get("tool"), "arguments": arguments}
            continue

        # Rule 4: a retryable error is retried unchanged, within the retry budget.
        if result.get("isRetryable") is True and categories.get(category) is True:
            if retries >= max_retries:
                return "exhausted", category, result
            retries += 1
            hint = result.get("retryAfterSeconds")
            sleep(hint if is_number(hint) else base_delay * multiplier ** (retries - 1))
            continue

        # Rule 5: everything else stops. Rule 6 holds by construction: nothing reads message.
        return "abort", category, result


if __name__ == "__main__":
    kata_repair_shim.run(call_with_repair)

// The client side: a reference retry policy for mcp-structured-errors.
//
// internal/shim runs this program for the grader and calls callWithRetry once per scenario.
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"orders/internal/shim"
)

func callWithRetry(
	invoke func(request shim.Request) shim.Payload,
	sleep func(seconds float64),
	log func(category, message string),
	request shim.Request,
	policy shim.Policy,
) shim.Outcome {
	retries := 0
	for {
		result := invoke(request)

		// Rule 1: isError absent or false is a success, true an error; any other value is a
		// malformed result, logged as unknown and never read as a success.
		raw, present := result["isError"]
		isError, isBool := raw.(bool)
		if !present || (isBool && !isError) {
			return shim.Outcome{Action: "success", Category: "", Result: result}
		}
		if !isBool {
			b, _ := json.Marshal(raw)
			log("unknown", fmt.Sprintf("malformed result (isError=%s); aborting", b))
			return shim.Outcome{Action: "abort", Category: "unknown", Result: result}
		}

		category, known := result["errorCategory"].(string)

		// Rule 2: escalation comes before any retry decision.
		if known && slices.Contains(policy.Escalate, category) {
			return shim.Outcome{Action: "escalate", Category: category, Result: result}
		}

		// Rule 3: an error we cannot classify is logged and never retried.
		allowed, inPolicy := policy.Categories[category]
		if !known || !inPolicy {
			raw, _ := json.Marshal(result["errorCategory"])
			log("unknown", fmt.Sprintf("error without a known category (errorCategory=%s); aborting", raw))
			return shim.Outcome{Action: "abort", Category: "unknown", Result: result}
		}

		// Rule 4: both the server's flag and the policy must allow a retry.
		if isRetryable, _ := result["isRetryable"].(bool); !(isRetryable && allowed) {
			return shim.Outcome{Action: "abort", Category: category, Result: result}
		}

		// Rule 6: at most MaxRetries retries; the last failure ends it at once.
		if retries >= policy.MaxRetries {
			return shim.Outcome{Action: "exhausted", Category: category, Result: result}
		}

		// Rule 5: the server's hint when it gave one, else exponential backoff (no jitter here).
		retries++
		if hint, ok := result["retryAfterSeconds"].(float64); ok {
			sleep(hint)
		} else {
			sleep(policy.BaseDelaySeconds * math.Pow(policy.Multiplier, float64(retries-1)))
		}
		// Rule 7 holds by construction: nothing above reads explanation.
	}
}

func main() {
	shim.RunClient(callWithRetry)
}

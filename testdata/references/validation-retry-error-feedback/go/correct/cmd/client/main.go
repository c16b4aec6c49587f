// The client side: a reference repair loop for validation-retry-error-feedback.
//
// internal/shim runs this program for the grader and calls callWithRepair once per scenario.
package main

import (
	"fmt"
	"math"
	"reflect"

	"orders/internal/shim"
)

func callWithRepair(
	invoke func(request shim.Request) shim.Payload,
	propose func(request shim.Request, feedback shim.Payload) shim.Arguments,
	sleep func(seconds float64),
	log func(category, message string),
	request shim.Request,
	policy shim.Policy,
) shim.Outcome {
	repairs, retries := 0, 0 // the two budgets are counted over the whole call and never reset
	for {
		result := invoke(request)

		// Rule 1: isError absent or false is a success; anything but true is malformed.
		isError, present := result["isError"]
		if !present || isError == false {
			return shim.Outcome{Action: "success", Result: result}
		}
		if isError != true {
			log("unknown", fmt.Sprintf("malformed result (isError=%v); aborting", isError))
			return shim.Outcome{Action: "abort", Category: "unknown", Result: result}
		}

		// Rule 2: an error we cannot classify is logged and never repaired or retried.
		category, isString := result["errorCategory"].(string)
		retryable, known := policy.Categories[category]
		if !isString || !known {
			log("unknown", fmt.Sprintf("error without a known category (errorCategory=%v); aborting", result["errorCategory"]))
			return shim.Outcome{Action: "abort", Category: "unknown", Result: result}
		}

		// Rule 3: a validation error goes back to the model, within the repair budget.
		if category == "validation" {
			if repairs >= policy.MaxRepairs {
				return shim.Outcome{Action: "exhausted", Category: category, Result: result}
			}
			repairs++
			proposal := propose(request, result)
			if reflect.DeepEqual(proposal, request.Arguments) {
				return shim.Outcome{Action: "abort", Category: category, Result: result} // the model is stuck
			}
			request = shim.Request{Tool: request.Tool, Arguments: proposal}
			continue
		}

		// Rule 4: a retryable error is retried unchanged, within the retry budget.
		if result["isRetryable"] == true && retryable {
			if retries >= policy.MaxRetries {
				return shim.Outcome{Action: "exhausted", Category: category, Result: result}
			}
			retries++
			if hint, ok := result["retryAfterSeconds"].(float64); ok {
				sleep(hint)
			} else {
				sleep(policy.BaseDelaySeconds * math.Pow(policy.Multiplier, float64(retries-1)))
			}
			continue
		}

		// Rule 5: everything else stops. Rule 6 holds by construction: nothing reads message.
		return shim.Outcome{Action: "abort", Category: category, Result: result}
	}
}

func main() {
	shim.RunRepair(callWithRepair)
}

package assistant

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolFunc is a tool's work: the decoded arguments in, the structured result or a typed error
// out.
type toolFunc[In, Out any] func(ctx context.Context, req *mcp.CallToolRequest, in In) (Out, *ToolError)

// addTool registers a tool whose input and output schemas are inferred from In and Out, through
// the SDK's untyped Server.AddTool, so that kata, not the SDK, decides what comes back:
//   - arguments that do not decode into In (an unknown argument, a wrong JSON type, not an
//     object) are a validation ToolError naming the argument, not a bare error text;
//   - a ToolError is returned as it is, a tool result with isError (the SDK's typed
//     mcp.AddTool would check it against the output schema and, the payload not matching,
//     turn it into a JSON-RPC error);
//   - a result is checked against the output schema before it is sent, so structuredContent
//     always conforms (MCP 2025-11-25, "Tools", output schema); one that does not is an
//     internal ToolError.
//
// The output schema is the union of Out's schema and the ToolError payload's (outputSchema
// below): the specification asks every structured result to conform, and the official
// TypeScript SDK's Client.callTool (1.32.x) checks error results too, so an error payload
// outside the schema would reach its caller as a -32602 "does not match the tool's output
// schema" instead of as the error (modelcontextprotocol/typescript-sdk#1943).
func addTool[In, Out any](ms *mcp.Server, t *mcp.Tool, run toolFunc[In, Out]) error {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		return fmt.Errorf("tool %s: input schema: %w", t.Name, err)
	}
	out, err := outputSchema[Out]()
	if err != nil {
		return fmt.Errorf("tool %s: output schema: %w", t.Name, err)
	}
	check, err := out.Resolve(nil)
	if err != nil {
		return fmt.Errorf("tool %s: output schema: %w", t.Name, err)
	}
	t.InputSchema, t.OutputSchema = in, out
	args := slices.Sorted(maps.Keys(in.Properties))
	ms.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var v In
		if terr := decodeArguments(t.Name, args, req.Params.Arguments, &v); terr != nil {
			return terr.result(), nil
		}
		o, terr := runGuarded(ctx, req, v, t.Name, run)
		if terr != nil {
			return terr.result(), nil
		}
		b, err := json.Marshal(o)
		if err == nil {
			var generic any
			if err = json.Unmarshal(b, &generic); err == nil {
				err = check.Validate(generic)
			}
		}
		if err != nil {
			return toolErr(CategoryInternal, "%s produced a result that does not match its output schema: %v", t.Name, err).result(), nil
		}
		return &mcp.CallToolResult{StructuredContent: json.RawMessage(b), Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
	})
	return nil
}

// outputSchema is a tool's output schema: an object that is either an Out or a ToolError
// (whose isError is the constant true and errorCategory one of the categories).
func outputSchema[Out any]() (*jsonschema.Schema, error) {
	ok, err := jsonschema.For[Out](nil)
	if err != nil {
		return nil, err
	}
	failed, err := jsonschema.For[ToolError](nil)
	if err != nil {
		return nil, err
	}
	var isTrue any = true
	failed.Properties["isError"].Const = &isTrue
	for _, c := range slices.Sorted(maps.Keys(Retryable)) {
		failed.Properties["errorCategory"].Enum = append(failed.Properties["errorCategory"].Enum, c)
	}
	return &jsonschema.Schema{Type: "object", AnyOf: []*jsonschema.Schema{ok, failed},
		Description: "the tool's result, or on failure (isError true) kata's typed error payload"}, nil
}

// runGuarded runs a tool, turning a panic into an internal ToolError so that one failed call
// does not end the session.
func runGuarded[In, Out any](ctx context.Context, req *mcp.CallToolRequest, in In, tool string, run toolFunc[In, Out]) (out Out, terr *ToolError) {
	defer func() {
		if p := recover(); p != nil {
			terr = toolErr(CategoryInternal, "%s failed: %v", tool, p)
		}
	}()
	return run(ctx, req, in)
}

// decodeArguments decodes a tools/call's arguments into v. Absent arguments decode as {}. A
// problem is a validation ToolError naming the argument and, for an unknown one, the tool's
// arguments.
func decodeArguments(tool string, names []string, raw json.RawMessage, v any) *ToolError {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return toolErr(CategoryValidation, "argument %s of %s must be %s, not %s", typeErr.Field, tool, jsonType(typeErr.Type), typeErr.Value)
	case errors.As(err, &typeErr):
		return toolErr(CategoryValidation, "the arguments of %s must be a JSON object, not %s", tool, typeErr.Value)
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return toolErr(CategoryValidation, "%s is not an argument of %s (its arguments: %s)", name, tool, orNone(names))
	}
	return toolErr(CategoryValidation, "the arguments of %s are not valid JSON: %v", tool, err)
}

// jsonType names the JSON type a Go type decodes from, for messages.
func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(jsonType(t.Elem()), "a "), "an ") + "s"
	case reflect.Pointer:
		return jsonType(t.Elem())
	default:
		return "an object"
	}
}

// The tools' names.
const (
	ToolListKatas      = "list_katas"
	ToolGradeWorkspace = "grade_workspace"
	ToolQuizItem       = "quiz_item"
	ToolCheckAnswer    = "check_answer"
)

// addTools registers the four tools.
func (s *server) addTools(ms *mcp.Server) error {
	no, yes := false, true
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}
	errs := []error{
		addTool(ms, &mcp.Tool{Name: ToolListKatas, Title: "List the katas",
			Description: "Lists the katas: id, title, summary, and the URIs and sizes of their layers and task steps, " +
				"so you can read one layer at a time. Takes no arguments.",
			Annotations: readOnly}, s.listKatas),
		addTool(ms, &mcp.Tool{Name: ToolGradeWorkspace, Title: "Grade a workspace",
			Description: "Grades a learner's workspace folder (one made by `kata init`, holding kata.json) against its kata's hidden " +
				"fixtures, as `kata grade --json` does: it launches the workspace's server (and client), so it runs the " +
				"learner's code. Returns the report: status pass, fail or error, and every test with its task_id and, on " +
				"failure, a message. Each call records the grade in the learner's progress. Takes from seconds to a minute " +
				"or two; sends progress when asked to.",
			// Not read-only and not idempotent: each call records a grade in the learner's
			// progress. Not destructive: it adds a grade and changes nothing else. Open world: it
			// runs the learner's code, which kata does not control.
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: false, IdempotentHint: false, DestructiveHint: &no, OpenWorldHint: &yes}}, s.gradeWorkspace),
		addTool(ms, &mcp.Tool{Name: ToolQuizItem, Title: "Show an exam item",
			Description: "Shows one exam item of a kata, without its key or rationales: the stem, how many options to choose, and " +
				"the options (in a shuffled order, each with a stable id). Name the item, or leave it out for one drawn at " +
				"random. Answer with check_answer.",
			Annotations: readOnly}, s.quizItem),
		addTool(ms, &mcp.Tool{Name: ToolCheckAnswer, Title: "Check an answer",
			Description: "Checks an answer to an exam item (the chosen option ids) and returns whether it is right, the key and " +
				"every option's rationale. An item with several keys scores only when exactly its keys are chosen.",
			Annotations: readOnly}, s.checkAnswer),
	}
	return errors.Join(errs...)
}

// Package assistant serves the packets and the grader to an AI assistant over MCP, and exports a
// packet as a Claude Code skill.
//
// The server (New, Serve) speaks MCP over stdio with the official Go SDK, at protocol revision
// 2025-11-25 (and the older revisions of ProtocolVersions), through a transport of its own
// (lineTransport) that answers malformed input with JSON-RPC errors instead of ending the
// session, and sends no response to a cancelled request. It offers each packet layer and each task step as a resource, read one at a time
// (a listing carries titles and sizes, never bodies); the ready prompts of every prompts layer
// as MCP prompts with their arguments; and four tools: list_katas, grade_workspace, quiz_item
// and check_answer. A failed tool call is a tools/call result with isError true whose
// structuredContent is a ToolError; docs/assistant.md documents the contract.
//
// ExportSkill writes a packet as a Claude Code skill folder and its agents layer as subagent
// definitions.
package assistant

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/katas"
)

// ServerName is the server's name in initialize (serverInfo.name) and the name its .mcp.json
// entry gets.
const ServerName = "kata"

// ProtocolVersions are the MCP revisions the server negotiates, newest first, as the
// specification's lifecycle asks ("Version negotiation"): a client's initialize that names one
// of them is answered with that one, any other with the newest. It is written and tested
// against 2025-11-25; the older revisions differ from it in nothing this server needs from a
// client (they lack titles, structuredContent and outputSchema, which such a client ignores),
// except that 2025-03-26 allowed JSON-RPC batches, which this server refuses on every revision
// (-32600), as the reference servers do. A client that asks for a newer revision (2026-07-28
// starts with server/discover) is turned down and falls back to the initialize handshake.
var ProtocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Options tune the server.
type Options struct {
	// Version is the server's version in initialize (serverInfo.version); "" reads "dev".
	Version string
	// Logger receives warnings, such as a prompt file whose Arguments section has problems;
	// nil discards them. It must not write to stdout, which carries the protocol.
	Logger *slog.Logger
	// OnGrade, when set, receives every finished grade (an interrupted one is no verdict and
	// is not passed on), for example to save it to the progress store. Grades of different
	// workspaces run at once, so it may be called from several goroutines.
	OnGrade func(*grader.Report)
	// WorkDir is the folder a relative workspace path is taken from; "" is the process's
	// working directory.
	WorkDir string
}

// server holds what the handlers share.
type server struct {
	lib  *katas.Library
	opts Options
	log  *slog.Logger

	// layers is held from loading a layer to reading its text: the library keeps one layer
	// resident, and a concurrent load would release it in between.
	layers sync.Mutex

	// sizes holds each layer resource's size in bytes by URI (measureLayers).
	sizes map[string]int64

	gradeMu sync.Mutex
	// grading holds the workspace folders being graded, so one folder is graded once at a time.
	grading map[string]bool
}

// New returns the MCP server for the packets of lib. It reads every layer once, one at a time,
// to list its exact size, and reads every prompts layer once to list the prompts and their arguments
// (releasing it afterwards); no other layer is read until a client asks for it. An error means
// a packet file could not be read.
func New(lib *katas.Library, opts Options) (*mcp.Server, error) {
	_, ms, err := newServer(lib, opts)
	return ms, err
}

// newServer is New, also returning the handlers' shared state (for tests).
func newServer(lib *katas.Library, opts Options) (*server, *mcp.Server, error) {
	s := &server{lib: lib, opts: opts, log: opts.Logger, grading: map[string]bool{}}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	ms := mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: "kata: graded katas for MCP engineering", Version: version},
		&mcp.ServerOptions{
			Instructions:              instructions,
			Logger:                    s.log,
			SupportedProtocolVersions: ProtocolVersions,
			// The packets do not change while the server runs: no list-changed notices.
			Capabilities: &mcp.ServerCapabilities{
				Tools:     &mcp.ToolCapabilities{},
				Resources: &mcp.ResourceCapabilities{},
				Prompts:   &mcp.PromptCapabilities{},
			},
		})
	ms.AddReceivingMiddleware(undeclared)
	s.measureLayers()
	for _, add := range []func(*mcp.Server) error{s.addResources, s.addPrompts, s.addTools} {
		if err := add(ms); err != nil {
			return nil, nil, err
		}
	}
	return s, ms, nil
}

// undeclared answers the requests of capabilities the server does not declare with JSON-RPC's
// -32601 "Method not found": logging/setLevel (no logging capability: the server sends no log
// notifications) and resources/subscribe and resources/unsubscribe (resources without
// subscribe). The SDK would otherwise answer logging/setLevel with success.
func undeclared(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "logging/setLevel", "resources/subscribe", "resources/unsubscribe":
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found: " + method + " (the server does not declare that capability)"}
		}
		return next(ctx, method, req)
	}
}

// instructions is what the server tells a client about itself in initialize.
const instructions = "kata's packets teach MCP engineering, one kata each. Read one layer at a time " +
	"(resources kata://KATA/LAYER, or a task step kata://KATA/task/N), never all of them together: the " +
	"listing gives each one's size. list_katas names the katas; grade_workspace grades a learner's " +
	"workspace folder; quiz_item and check_answer run the kata's exam items one at a time. A failed tool " +
	"call returns isError with errorCategory, isRetryable, retryAfterSeconds and explanation."

// Serve runs the server for lib over stdin and stdout until the client closes the connection
// or ctx is cancelled. Bad input (a line that is not JSON, not a JSON-RPC 2.0 message, or
// longer than MaxMessageBytes) is answered with a JSON-RPC error and the session goes on.
func Serve(ctx context.Context, lib *katas.Library, opts Options) error {
	ms, err := New(lib, opts)
	if err != nil {
		return err
	}
	return serveIO(ctx, ms, os.Stdin, os.Stdout)
}

// serveIO runs ms over one line-delimited stream: requests from r, responses to w.
func serveIO(ctx context.Context, ms *mcp.Server, r io.ReadCloser, w io.Writer) error {
	err := ms.Run(ctx, &lineTransport{r: r, w: w, max: MaxMessageBytes})
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("mcp server: %w", err)
	}
	return nil
}

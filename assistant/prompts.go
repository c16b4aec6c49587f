package assistant

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kata-mcp/kata/katas"
)

// promptsLayer is the layer whose files are ready prompts.
const promptsLayer = "prompts"

// PromptName is the MCP name of a kata's ready prompt: "KATA.NAME", NAME being the file's
// name without its number (katas.Prompt.Name), such as
// "mcp-structured-errors.review-my-error-contract". When two files of a kata give the same
// NAME, the second keeps its number.
func PromptName(kata, name string) string { return kata + "." + name }

// addPrompts registers the ready prompts of every packet's prompts layer. It reads each
// prompts layer once and releases it; a prompt's text is read again when a client gets it.
// A file whose Arguments section has problems is served with the arguments that parse, and
// the problems are logged.
func (s *server) addPrompts(ms *mcp.Server) error {
	s.layers.Lock()
	defer s.layers.Unlock()
	defer s.lib.ReleaseLayer()
	names := map[string]bool{}
	for _, p := range s.lib.Packets() {
		if !slices.Contains(p.Layers, promptsLayer) {
			continue
		}
		l, err := s.lib.LoadLayer(p.ID, promptsLayer)
		if err != nil {
			return err
		}
		for _, f := range l.Files() {
			pr, err := katas.ParsePrompt(p.ID+"/"+promptsLayer+"/"+f.Name, f.Markdown)
			if err != nil {
				s.log.Warn("prompt arguments skipped", "problems", err.Error())
			}
			name := PromptName(p.ID, pr.Name)
			if names[name] { // "01-review.md" beside "review.md": keep the number
				name = PromptName(p.ID, strings.TrimSuffix(f.Name, ".md"))
			}
			names[name] = true
			mp := &mcp.Prompt{Name: name, Title: pr.Title, Description: pr.Description}
			for _, a := range pr.Arguments {
				mp.Arguments = append(mp.Arguments, &mcp.PromptArgument{Name: a.Name, Description: a.Description})
			}
			ms.AddPrompt(mp, s.getPrompt(p.ID, f.Name))
		}
	}
	return nil
}

// getPrompt returns the handler of one prompt file: its text, with the arguments given filled
// in, as one user message. An argument the prompt does not have is a JSON-RPC invalid-params
// error naming the arguments it has.
func (s *server) getPrompt(kata, file string) mcp.PromptHandler {
	return func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		pr, err := s.readPrompt(kata, file)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, a := range pr.Arguments {
			names = append(names, a.Name)
		}
		for name := range req.Params.Arguments {
			if !slices.Contains(names, name) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
					Message: fmt.Sprintf("prompt %s has no argument %q (arguments: %s)", req.Params.Name, name, orNone(names))}
			}
		}
		return &mcp.GetPromptResult{
			Description: pr.Description,
			Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: pr.Fill(req.Params.Arguments)}}},
		}, nil
	}
}

// readPrompt loads the prompts layer and parses one of its files.
func (s *server) readPrompt(kata, file string) (katas.Prompt, error) {
	s.layers.Lock()
	defer s.layers.Unlock()
	l, err := s.lib.LoadLayer(kata, promptsLayer)
	if err != nil {
		return katas.Prompt{}, err
	}
	for _, f := range l.Files() {
		if f.Name == file {
			// problems with its arguments were logged when the prompt was listed
			pr, _ := katas.ParsePrompt(kata+"/"+promptsLayer+"/"+f.Name, f.Markdown)
			return pr, nil
		}
	}
	return katas.Prompt{}, fmt.Errorf("kata %s: the prompt file %s is gone", kata, file)
}

// orNone joins names, or says "none".
func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

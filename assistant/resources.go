package assistant

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kata-mcp/kata/katas"
)

// URIScheme is the scheme of the server's resources.
const URIScheme = "kata"

// LayerURI names one layer of a kata: kata://KATA/LAYER.
func LayerURI(kata, layer string) string { return URIScheme + "://" + kata + "/" + layer }

// StepURI names one step of a kata's task: kata://KATA/task/N.
func StepURI(kata string, n int) string { return fmt.Sprintf("%s://%s/task/%d", URIScheme, kata, n) }

// markdown is the MIME type of every resource (RFC 7763).
const markdown = "text/markdown"

// layerPurpose says what each layer holds (docs/packets.md, "Layers").
var layerPurpose = map[string]string{
	"knowledge": "the body of knowledge: the mental model, the rules and why they hold",
	"prompts":   "ready prompts to paste into an assistant",
	"examples":  "good and bad sample output, each with commentary",
	"agents":    "subagent definitions (front matter shown as a YAML block)",
	"templates": "what the starter workspace holds and how to run it",
}

// measureLayers reads every layer once, one at a time, to learn the exact size in bytes of what
// a read of it returns (its files' sizes as stored understate it: an embedded asset table, front
// matter shown as a code block, a locale twin that does not agree and is replaced by English),
// and releases the last one. A layer that cannot be read is left out: its resource is listed
// without a size, and reading it reports the problem.
func (s *server) measureLayers() {
	s.sizes = map[string]int64{}
	s.layers.Lock()
	defer s.layers.Unlock()
	for _, p := range s.lib.Packets() {
		for _, layer := range p.Layers {
			if l, err := s.lib.LoadLayer(p.ID, layer); err == nil {
				s.sizes[LayerURI(p.ID, layer)] = int64(len(l.Markdown()))
			}
		}
	}
	s.lib.ReleaseLayer()
}

// layerSize is the size of the layer's resource in bytes, as measureLayers found it; false
// when the layer could not be read.
func (s *server) layerSize(kata, layer string) (int64, bool) {
	n, ok := s.sizes[LayerURI(kata, layer)]
	return n, ok
}

// addResources registers one resource per layer and per task step, each listed with the exact
// size of what a read returns (measureLayers); listing reads no layer.
func (s *server) addResources(ms *mcp.Server) error {
	for _, p := range s.lib.Packets() {
		for i, layer := range p.Layers {
			size, _ := s.layerSize(p.ID, layer)
			desc := fmt.Sprintf("Layer %d of %d of the kata %s: %s.", i+1, len(p.Layers), p.ID, layerPurpose[layer])
			if layer == promptsLayer {
				desc += " Each is also one of this server's prompts."
			}
			ms.AddResource(&mcp.Resource{
				URI: LayerURI(p.ID, layer), Name: p.ID + "/" + layer, Title: p.Title + " · " + layer,
				Description: desc, MIMEType: markdown, Size: size,
			}, s.readLayer(p.ID, layer))
		}
		for _, st := range p.Task.Steps {
			text := stepText(p, st)
			ms.AddResource(&mcp.Resource{
				URI: StepURI(p.ID, st.Number), Name: fmt.Sprintf("%s/task/%d", p.ID, st.Number),
				Title:       fmt.Sprintf("%s · task step %d: %s", p.Title, st.Number, st.Title),
				Description: fmt.Sprintf("Step %d of %d of the kata's practical task; graded tests report it as task_id %d.", st.Number, len(p.Task.Steps), st.Number),
				MIMEType:    markdown, Size: int64(len(text)),
			}, s.readStep(text))
		}
	}
	return nil
}

// stepText is a task step as a document of its own: the step's heading under the task's title.
func stepText(p *katas.Packet, st katas.Step) string {
	return fmt.Sprintf("# %s\n\n## %d. %s\n\n%s\n", p.Task.Title, st.Number, st.Title, strings.TrimSpace(st.Markdown))
}

// readLayer returns the handler that reads one layer, making it the library's resident layer.
func (s *server) readLayer(kata, layer string) mcp.ResourceHandler {
	return func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		s.layers.Lock()
		l, err := s.lib.LoadLayer(kata, layer)
		var text string
		if err == nil {
			text = l.Markdown()
		}
		s.layers.Unlock()
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", req.Params.URI, err)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: markdown, Text: text}}}, nil
	}
}

// readStep returns the handler that reads one task step (steps are parsed with the packet and
// held in memory).
func (s *server) readStep(text string) mcp.ResourceHandler {
	return func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: markdown, Text: text}}}, nil
	}
}

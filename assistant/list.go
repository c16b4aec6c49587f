package assistant

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kata-mcp/kata/katas"
)

// KataList is list_katas' result.
type KataList struct {
	Katas []KataSummary `json:"katas"`
}

// KataSummary describes one kata and where to read it.
type KataSummary struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Version string `json:"version"`
	Summary string `json:"summary"`
	// Source is "embedded" or the folder the packet was loaded from.
	Source string `json:"source"`
	// Layers in the order the packet shows them.
	Layers    []LayerRef `json:"layers"`
	TaskSteps []StepRef  `json:"taskSteps"`
	// Items counts the kata's exam items (quiz_item shows them).
	Items int `json:"items"`
	// Graded lists the parts grade_workspace grades: server, client, config.
	Graded []string `json:"graded"`
	// Languages are those `kata init --lang` can start a workspace in.
	Languages []string `json:"languages"`
}

// LayerRef is one layer's resource: its name, URI and size in bytes (what a read returns).
type LayerRef struct {
	Name string `json:"name"`
	URI  string `json:"uri"`
	Size int64  `json:"size"`
}

// StepRef is one task step's resource.
type StepRef struct {
	Number int    `json:"number"`
	Title  string `json:"title"`
	URI    string `json:"uri"`
}

// listKatas is the list_katas tool: every packet's summary, no layer read.
func (s *server) listKatas(context.Context, *mcp.CallToolRequest, struct{}) (KataList, *ToolError) {
	out := KataList{Katas: []KataSummary{}}
	for _, p := range s.lib.Packets() {
		k := KataSummary{ID: p.ID, Title: p.Title, Version: p.Version, Summary: p.Summary, Source: p.Source,
			Layers: []LayerRef{}, TaskSteps: []StepRef{}, Items: len(p.Items),
			Graded: nonNil(p.Graded), Languages: nonNil(p.Languages)}
		for _, layer := range p.Layers {
			size, ok := s.layerSize(p.ID, layer)
			if !ok {
				return KataList{}, toolErr(CategoryInternal, "the layer %s of %s cannot be read; read its resource %s to see why", layer, p.ID, LayerURI(p.ID, layer))
			}
			k.Layers = append(k.Layers, LayerRef{Name: layer, URI: LayerURI(p.ID, layer), Size: size})
		}
		for _, st := range p.Task.Steps {
			k.TaskSteps = append(k.TaskSteps, StepRef{Number: st.Number, Title: st.Title, URI: StepURI(p.ID, st.Number)})
		}
		out.Katas = append(out.Katas, k)
	}
	return out, nil
}

// nonNil turns a nil list into an empty one, which marshals as [] rather than null.
func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// packet returns the kata named by a tool's kata argument, or the typed error: validation when
// the argument is empty, not_found when no kata has that id.
func (s *server) packet(tool, id string) (*katas.Packet, *ToolError) {
	if id == "" {
		return nil, toolErr(CategoryValidation, "argument kata of %s is required: a kata id (list_katas names them: %s)", tool, orNone(s.lib.IDs()))
	}
	p, ok := s.lib.Get(id)
	if !ok {
		return nil, toolErr(CategoryNotFound, "no kata %q (the katas: %s)", id, orNone(s.lib.IDs()))
	}
	return p, nil
}

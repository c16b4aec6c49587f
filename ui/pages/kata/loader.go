package kata

import (
	"sync"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui/common"
)

// Loader loads layers through the Library one at a time, so that the resident layer is
// always the one last asked for: a request superseded before it runs is skipped.
type Loader struct {
	lib    *katas.Library
	mu     sync.Mutex
	latest atomic.Uint64
}

// NewLoader returns the loader of lib's layers; one serves every kata page.
func NewLoader(lib *katas.Library) *Loader { return &Loader{lib: lib} }

// Resident reports whether the packet's layer is the Library's resident layer.
func (l *Loader) Resident(packet, layer string) bool {
	r := l.lib.Resident()
	return r != nil && r.Packet == packet && r.Name == layer
}

// Load returns a command that makes the layer resident and renders it; k.doc is
// "packet/layer".
func (l *Loader) Load(packet, layer string, k common.RenderKey) tea.Cmd {
	gen := l.latest.Add(1)
	return func() tea.Msg {
		l.mu.Lock()
		if l.latest.Load() != gen {
			l.mu.Unlock()
			return nil // a later request will load its own layer
		}
		lay, err := l.lib.LoadLayer(packet, layer)
		var md string
		if err == nil {
			md = lay.Markdown() // read while no other load can release it
		}
		l.mu.Unlock()
		if err != nil {
			return common.RenderedMsg{Key: k, Err: err}
		}
		return common.Rendered(k, md)
	}
}

package kata

import (
	"context"
	"sync"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui/common"
)

// Loader loads layers through the Library one at a time, so that the resident layer is
// always the one last asked for: a request superseded before it runs is skipped, and a newer
// request cancels the rendering of an older one that has not started yet (markdown.RenderContext),
// so leaving a layer never leaves its rendering to pile up behind the next.
type Loader struct {
	lib    *katas.Library
	mu     sync.Mutex
	latest atomic.Uint64
	// english holds, by "packet/layer", whether the layer last loaded had files read in English
	// although the library reads another locale (katas.Layer.Fallback); guarded by mu.
	english map[string]bool
	// cancel ends the context of the latest request's rendering.
	cancelMu sync.Mutex
	cancel   context.CancelFunc
}

// NewLoader returns the loader of lib's layers; one serves every kata page.
func NewLoader(lib *katas.Library) *Loader { return &Loader{lib: lib} }

// Resident reports whether the packet's layer is the Library's resident layer.
func (l *Loader) Resident(packet, layer string) bool {
	r := l.lib.Resident()
	return r != nil && r.Packet == packet && r.Name == layer
}

// InEnglish reports whether the packet's layer, when last loaded, had files read in English
// although the library reads another locale (katas.Layer.Fallback).
func (l *Loader) InEnglish(packet, layer string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.english[packet+"/"+layer]
}

// Load returns a command that makes the layer resident and renders it; k.doc is
// "packet/layer". Asking for another layer cancels this one's rendering if it has not
// started; a rendering that was cancelled gives no message.
func (l *Loader) Load(packet, layer string, k common.RenderKey) tea.Cmd {
	gen := l.latest.Add(1)
	ctx, cancel := context.WithCancel(context.Background())
	l.cancelMu.Lock()
	if l.cancel != nil {
		l.cancel()
	}
	l.cancel = cancel
	l.cancelMu.Unlock()
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
			if l.english == nil {
				l.english = map[string]bool{}
			}
			l.english[packet+"/"+layer] = len(lay.Fallback) > 0
		}
		l.mu.Unlock()
		if err != nil {
			return common.RenderedMsg{Key: k, Err: err}
		}
		msg := common.RenderedContext(ctx, k, md)
		if ctx.Err() != nil && l.latest.Load() != gen {
			return nil // superseded: the page has asked for another layer
		}
		return msg
	}
}

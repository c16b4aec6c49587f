package kata

import (
	"testing"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
	"github.com/kata-mcp/kata/ui/common"
	"github.com/kata-mcp/kata/ui/markdown"
)

// TestLeftLayerIsNotRendered: once another layer is asked for, the request for the layer left
// renders nothing and gives no message; the latest request renders its layer.
func TestLeftLayerIsNotRendered(t *testing.T) {
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		t.Fatal(err)
	}
	l := NewLoader(lib)
	p := lib.Packets()[0]
	left := l.Load(p.ID, "knowledge", common.RenderKey{Doc: p.ID + "/knowledge", Width: 70, Style: markdown.StyleASCII})
	latest := l.Load(p.ID, "examples", common.RenderKey{Doc: p.ID + "/examples", Width: 70, Style: markdown.StyleASCII})
	if msg := left(); msg != nil {
		t.Errorf("the layer left gave %#v", msg)
	}
	msg, ok := latest().(common.RenderedMsg)
	if !ok || msg.Err != nil || msg.Out == "" || msg.Key.Doc != p.ID+"/examples" {
		t.Errorf("the latest layer gave %#v", msg)
	}
	if !l.Resident(p.ID, "examples") {
		t.Error("the latest layer is not resident")
	}
}

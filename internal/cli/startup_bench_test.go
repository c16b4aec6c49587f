package cli

import (
	"bytes"
	"io"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
	"github.com/kata-mcp/kata/ui"
)

// BenchmarkStartup measures the two start-up figures of issue 16, each from nothing loaded:
// the first frame of the app (the library loaded, the interface built and sized, its catalog
// drawn) and `kata list` (the library loaded, the list written). They print as ms/frame and
// ms/list. The process's own start (the Go runtime, package initialisation) comes on top; time
// the built binary for that.
func BenchmarkStartup(b *testing.B) {
	b.Run("first-frame", func(b *testing.B) { firstFrame(b, katas.English) })
	// in Russian: the catalog lists the packets of a localized view, which parses none either
	b.Run("first-frame-ru", func(b *testing.B) { firstFrame(b, "ru") })
	b.Run("list", func(b *testing.B) {
		for b.Loop() {
			cmd := newRootCmd(io.Discard, io.Discard)
			cmd.SetArgs([]string{"list"})
			if err := cmd.Execute(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/list")
	})
}

// firstFrame times the app's first frame with the packets read in locale.
func firstFrame(b *testing.B, locale string) {
	for b.Loop() {
		lib, err := katas.Discover(packets.FS, "embedded")
		if err != nil {
			b.Fatal(err)
		}
		m := ui.New(lib.Localized(locale), ui.Options{Style: "ascii", Seed: 1, Now: func() time.Time { return time.Unix(0, 0) }})
		next, _ := m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		if !bytes.Contains([]byte(next.View().Content), []byte("mcp-structured-errors")) {
			b.Fatal("the first frame does not list the katas")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/frame")
}

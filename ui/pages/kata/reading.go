package kata

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// A layer counts as read once it has been scrolled to its end and on screen as long as
// skimming it takes: SkimWordsPerMinute, MinReadTime at least. Flicking through the layers
// counts none of them.
const (
	SkimWordsPerMinute = 600
	MinReadTime        = 10 * time.Second
)

// reading tracks the layer on show towards counting it as read.
type reading struct {
	gen   int       // which showing of a layer this is (ticks of an earlier one are dropped)
	since time.Time // when the layer came on screen (or the screen back into view)
	need  time.Duration
	seen  int  // the lowest line on screen so far, +1
	end   bool // the last line has been on screen
	done  bool // recorded as read
	words int
}

// readTickMsg says the reading time of a showing may be up.
type readTickMsg struct {
	doc string
	gen int
}

// readTime is how long a layer of words words must be on screen to count as read.
func readTime(words int) time.Duration {
	return max(MinReadTime, time.Duration(words)*time.Minute/SkimWordsPerMinute)
}

// restart starts the clock again at now (the screen came back into view).
func (r *reading) restart(now time.Time) {
	if !r.since.IsZero() && !r.done {
		r.since = now
	}
}

// startReading starts the reading clock of the layer just shown and schedules the check for
// when its time is up.
func (m *Model) startReading() tea.Cmd {
	words := 0
	for _, l := range m.doc.Lines {
		words += len(strings.Fields(l.Plain()))
	}
	m.read = reading{gen: m.read.gen + 1, since: m.c.Now(), need: readTime(words), words: words}
	return tea.Batch(m.tick(m.read.need), m.checkRead(false))
}

// tick schedules the reading check after d.
func (m *Model) tick(d time.Duration) tea.Cmd {
	doc, gen := m.shown.Doc, m.read.gen
	return m.c.Tick(d, func(time.Time) tea.Msg { return readTickMsg{doc: doc, gen: gen} })
}

// checkRead notes how far down the layer has been on screen and records it as read once it
// has been scrolled to its end and its time is up. A tick that finds the time not up yet (the
// clock restarted when the screen came back) schedules the next.
func (m *Model) checkRead(tick bool) tea.Cmd {
	r := &m.read
	if r.since.IsZero() || r.done || m.doc == nil || m.c.Height == 0 {
		return nil
	}
	r.seen = max(r.seen, m.vp.YOffset()+m.vp.Height())
	r.end = r.end || r.seen >= len(m.doc.Lines)
	if !r.end {
		return nil
	}
	if left := r.need - m.c.Now().Sub(r.since); left > 0 {
		if tick {
			return m.tick(left)
		}
		return nil
	}
	r.done = true
	return m.c.LayerRead(m.p.ID, m.layerName())
}

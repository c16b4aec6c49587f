package kata

import (
	"fmt"
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
	// ticking is set while a clock tick is scheduled: one a second while time is left, so the
	// title's countdown moves.
	ticking bool
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
	return m.checkRead(false)
}

// left is the reading time still to go at now (0 once it is up).
func (r *reading) left(now time.Time) time.Duration {
	return max(r.need-now.Sub(r.since), 0)
}

// status says, for the title, how the layer on show stands towards counting as read: the time
// left ("counts as read in 2:30"), then, once it is up, that its end is still to be reached;
// "read" once recorded; "" before a layer is on show.
func (m *Model) readStatus() string {
	r := &m.read
	switch {
	case r.done:
		return m.c.T("kata.read")
	case r.since.IsZero() || m.doc == nil:
		return ""
	}
	if left := r.left(m.c.Now()); left > 0 {
		secs := int((left + time.Second - 1) / time.Second)
		return m.c.T("kata.read_in", "Left", fmt.Sprintf("%d:%02d", secs/60, secs%60))
	}
	return m.c.T("kata.read_end")
}

// tick schedules the reading check after d.
func (m *Model) tick(d time.Duration) tea.Cmd {
	doc, gen := m.shown.Doc, m.read.gen
	return m.c.Tick(d, func(time.Time) tea.Msg { return readTickMsg{doc: doc, gen: gen} })
}

// checkRead notes how far down the layer has been on screen and records it as read once it
// has been scrolled to its end and its time is up. While time is left it keeps one clock tick
// scheduled (a second at most), so the title's countdown moves; tick says this call is one.
func (m *Model) checkRead(tick bool) tea.Cmd {
	r := &m.read
	if tick {
		r.ticking = false
	}
	if r.since.IsZero() || r.done || m.doc == nil || m.c.Height == 0 {
		return nil
	}
	r.seen = max(r.seen, m.vp.YOffset()+m.vp.Height())
	r.end = r.end || r.seen >= len(m.doc.Lines)
	if left := r.left(m.c.Now()); left > 0 {
		if r.ticking {
			return nil
		}
		r.ticking = true
		return m.tick(min(left, time.Second))
	}
	if !r.end {
		return nil
	}
	r.done = true
	return m.c.LayerRead(m.p.ID, m.layerName())
}

package class

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/katas"
)

// barWidth is the progress bar's width in cells.
const barWidth = 24

// Progress draws a batch's progress on w: on a terminal, one bar redrawn in place (learners
// done of all, how many are being graded, the last one finished); otherwise one plain line per
// finished learner, which a log or CI keeps.
type Progress struct {
	w        io.Writer
	terminal bool
	mu       sync.Mutex
	drawn    bool
	// last is the latest finished learner's outcome, shown until the next one finishes.
	last string
}

// NewProgress returns a Progress writing to w; terminal says w is a terminal.
func NewProgress(w io.Writer, terminal bool) *Progress { return &Progress{w: w, terminal: terminal} }

// Event draws one event; use it as Options.Progress.
func (p *Progress) Event(e Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.Kind == EventBegan {
		fmt.Fprintf(p.w, "kata class grade: %s, %d at a time, seed %d (repeat with --seed %d)\n", katas.Count(e.Total, "learner", "learners"), e.Jobs, e.Seed, e.Seed)
		return
	}
	if !p.terminal {
		if e.Kind == EventFinished {
			fmt.Fprintf(p.w, "[%d/%d] %s: %s\n", e.Done, e.Total, e.Learner.Name, Outcome(e.Result))
		}
		return
	}
	filled := 0
	if e.Total > 0 {
		filled = barWidth * e.Done / e.Total
	}
	line := fmt.Sprintf("[%s%s] %d/%d · %d grading", strings.Repeat("█", filled), strings.Repeat("░", barWidth-filled), e.Done, e.Total, e.Running)
	if e.Kind == EventFinished {
		p.last = e.Learner.Name + ": " + Outcome(e.Result)
	}
	if p.last != "" {
		line += " · " + p.last
	}
	fmt.Fprint(p.w, "\r\x1b[K"+clip(line, 110))
	p.drawn = true
}

// Done clears the bar from the terminal (it leaves plain lines as they are).
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// Outcome says a learner's result in a few words: "45/47 passed · 45/47 points (96%)", or
// "cannot grade: …", with "(unchanged)" when it came from the results store.
func Outcome(r *Result) string {
	if r == nil || r.Report == nil {
		return ""
	}
	rep := r.Report
	var s string
	if rep.Status == grader.StatusError {
		s = "cannot grade: " + firstLine(rep.Message)
	} else {
		pass, _, _ := rep.Counts()
		s = fmt.Sprintf("%d/%d passed", pass, len(rep.Tests))
		if rep.MaxPoints > 0 {
			s += fmt.Sprintf(" · %s/%s points (%.0f%%)", grader.FormatPoints(rep.Points), grader.FormatPoints(rep.MaxPoints), 100*rep.Points/rep.MaxPoints)
		}
	}
	if r.Reused {
		return s + " (unchanged since its stored result)"
	}
	return s + fmt.Sprintf(" · %.1f s", r.Duration.Seconds())
}

// clip cuts s to n characters.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

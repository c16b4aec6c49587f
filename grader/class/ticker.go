package class

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/internal/termtext"
)

// barWidth is the progress bar's width in cells.
const barWidth = 24

// Ticker draws a batch's progress on w: on a terminal, one bar redrawn in place (learners
// done of all, how many are being graded, the last one finished); otherwise one plain line per
// finished learner, which a log or CI keeps. A learner's folder name is printed as
// termtext.Name has it: quoted when it holds a control character, which a terminal would obey.
type Ticker struct {
	w        io.Writer
	terminal bool
	mu       sync.Mutex
	drawn    bool
	// last is the latest finished learner's outcome, shown until the next one finishes.
	last string
	loc  *i18n.Localizer
	// key, when set, anonymizes the progress: pseudonyms for names, and each learner's text
	// scrubbed (Scrubber).
	key []byte
}

// Anonymize makes the ticker name each learner by Pseudonym(key, name) and scrub what it
// quotes of the learner's report, as an anonymized report does.
func (p *Ticker) Anonymize(key []byte) { p.key = key }

// learner is how the ticker names e's learner, and e's result as the ticker quotes it.
func (p *Ticker) learner(e Event) (string, *Result) {
	if p.key == nil || e.Learner.Name == "" {
		return termtext.Name(e.Learner.Name), e.Result
	}
	pseudonym := Pseudonym(p.key, e.Learner.Name)
	if e.Result == nil || e.Result.Report == nil {
		return pseudonym, e.Result
	}
	r := *e.Result
	r.Report = scrubReport(r.Report, Scrubber(e.Learner, pseudonym))
	return pseudonym, &r
}

// NewTicker returns a Ticker writing to w in loc's language (nil: English); terminal says
// w is a terminal.
func NewTicker(w io.Writer, terminal bool, loc *i18n.Localizer) *Ticker {
	return &Ticker{w: w, terminal: terminal, loc: loc}
}

// Event draws one event; use it as Options.OnEvent.
func (p *Ticker) Event(e Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.Kind == EventBegan {
		fmt.Fprintln(p.w, p.loc.T("class.progress.began", "Learners", p.loc.N("count.learner", e.Total), "Jobs", e.Jobs,
			"Seed", p.loc.T("grade.seed_repeat", "Seed", e.Seed)))
		return
	}
	name, res := p.learner(e)
	if !p.terminal {
		if e.Kind == EventFinished {
			fmt.Fprintf(p.w, "[%d/%d] %s: %s\n", e.Done, e.Total, name, Outcome(res, p.loc))
		}
		return
	}
	filled := 0
	if e.Total > 0 {
		filled = barWidth * e.Done / e.Total
	}
	line := fmt.Sprintf("[%s%s] ", strings.Repeat("█", filled), strings.Repeat("░", barWidth-filled)) +
		p.loc.T("class.progress.grading", "Done", e.Done, "Total", e.Total, "Running", e.Running)
	if e.Kind == EventFinished {
		p.last = name + ": " + Outcome(res, p.loc)
	}
	if p.last != "" {
		line += " · " + p.last
	}
	fmt.Fprint(p.w, "\r\x1b[K"+clip(line, 110))
	p.drawn = true
}

// Done clears the bar from the terminal (it leaves plain lines as they are).
func (p *Ticker) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// Outcome says a learner's result in a few words in loc's language (nil: English):
// "45/47 passed · 45/47 points (96%)", or "cannot grade: …", with "(unchanged since its
// stored result)" when it came from the results store, else how long grading took.
func Outcome(r *Result, loc *i18n.Localizer) string {
	if r == nil || r.Report == nil {
		return ""
	}
	rep := r.Report
	var s string
	if rep.Status == grader.StatusError {
		s = loc.T("class.cannot_grade", "Why", firstLine(grader.Localize(rep, loc, nil).Message))
	} else {
		pass, _, _ := rep.Counts()
		s = loc.T("class.passed", "Passed", pass, "Tests", len(rep.Tests))
		if rep.MaxPoints > 0 {
			s += " · " + loc.T("grade.points", "Points", grader.FormatPoints(rep.Points), "Max", grader.FormatPoints(rep.MaxPoints),
				"Percent", fmt.Sprintf("%.0f", Percent(rep.Points, rep.MaxPoints)))
		}
	}
	if r.Reused {
		return s + " " + loc.T("class.progress.unchanged")
	}
	return s + " · " + seconds(loc, r.Duration.Milliseconds())
}

// clip cuts s to n characters.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

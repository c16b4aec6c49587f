package progress

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/katas/exam"
)

// This file is `kata stats`: the store's figures lined up with the library's packets, as JSON
// or as text.

// ReportKata is one kata's line of `kata stats --json`: the store's figures plus the packet's.
type ReportKata struct {
	KataStats
	// Title is the packet's title ("" for a kata the store knows but the library no longer has).
	Title string `json:"title"`
	// LayersTotal is the number of layers a packet has (len(katas.LayerNames)).
	LayersTotal int `json:"layers_total"`
	// Items and Traps count the packet's exam items and trap rows (the cards it can have).
	Items int `json:"items"`
	Traps int `json:"traps"`
}

// ReportOpen is the unfinished exam: the store's figures (Answered counts items with at least
// one option marked) plus Complete, the items marked with as many options as they ask for —
// what the exam screen counts as answered.
type ReportOpen struct {
	OpenStats
	Complete int `json:"complete"`
}

// Report is `kata stats --json`: totals (Stats, whose katas list is replaced by
// one line per packet of the library, then any other kata the store knows) plus the file and
// the time the figures are for.
type Report struct {
	Path string    `json:"path"`
	At   time.Time `json:"at"`
	Stats
	Open  *ReportOpen  `json:"open_attempt"`
	Katas []ReportKata `json:"katas"`
}

// openExam describes the store's open attempt, counting complete answers against the items'
// Choose; nil when there is none.
func openExam(lib *katas.Library, s *Store, o *OpenStats) (*ReportOpen, error) {
	if o == nil {
		return nil, nil
	}
	saved, err := s.ExamAnswers(o.ID)
	if err != nil {
		return nil, err
	}
	out := &ReportOpen{OpenStats: *o}
	out.Complete = exam.CountAnswered(lib.Packets(), saved, func(a ExamAnswer) []string { return a.Chosen })
	return out, nil
}

// BuildReport reads the store at path (without creating it when absent) and lines its figures
// up with the library's packets.
func BuildReport(lib *katas.Library, path string, now time.Time) (*Report, error) {
	rep := &Report{Path: path, At: now, Katas: []ReportKata{}}
	if _, err := os.Stat(path); err == nil {
		s, err := Open(path)
		if err != nil {
			return nil, err
		}
		defer s.Close()
		if rep.Stats, err = s.Stats(now); err != nil {
			return nil, err
		}
		if rep.Open, err = openExam(lib, s, rep.Stats.Open); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("progress store %s: %w", path, err)
	}
	known := map[string]KataStats{}
	for _, k := range rep.Stats.Katas {
		known[k.Kata] = k
	}
	for _, p := range lib.Packets() {
		k, ok := known[p.ID]
		if !ok {
			k = KataStats{Kata: p.ID, LayersRead: []string{}}
		}
		delete(known, p.ID)
		rep.Katas = append(rep.Katas, ReportKata{KataStats: k, Title: p.Title, LayersTotal: len(katas.LayerNames), Items: len(p.Items), Traps: p.TrapCount()})
	}
	for _, k := range rep.Stats.Katas { // in the store only, in id order
		if _, ok := known[k.Kata]; ok {
			rep.Katas = append(rep.Katas, ReportKata{KataStats: k, LayersTotal: len(katas.LayerNames)})
		}
	}
	return rep, nil
}

// ReadItemReport reads the item analysis from the store at path (without creating it when absent).
func ReadItemReport(lib *katas.Library, path string) (ItemReport, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return ItemReport{Items: []ItemStats{}}, nil
	}
	s, err := Open(path)
	if err != nil {
		return ItemReport{}, err
	}
	defer s.Close()
	return s.ItemStats(lib.Packets())
}

// day formats a time as a local date, "—" for none.
func day(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.Local().Format("2006-01-02")
}

// WriteText writes the readable summary of `kata stats` in English.
func (r *Report) WriteText(w io.Writer) { r.WriteTextIn(w, nil) }

// WriteTextIn writes the readable summary of `kata stats` in loc's language (nil: English);
// kata ids, titles, statuses and paths stay as they are.
func (r *Report) WriteTextIn(w io.Writer, loc *i18n.Localizer) {
	fmt.Fprintf(w, "%s\n%s\n\n", loc.T("stats.head", "Path", r.Path), loc.T("stats.head_note"))
	labels := []string{loc.T("stats.layers"), loc.T("stats.answers"), loc.T("stats.best"), loc.T("stats.grade"), loc.T("stats.cards")}
	width := 0
	for _, l := range labels {
		width = max(width, utf8.RuneCountInString(l))
	}
	row := func(i int, value string) {
		fmt.Fprintf(w, "  %s%s %s\n", labels[i], strings.Repeat(" ", width-utf8.RuneCountInString(labels[i])+3), value)
	}
	for _, k := range r.Katas {
		title := k.Title
		if title == "" {
			title = loc.T("stats.not_in_build")
		}
		fmt.Fprintf(w, "%s — %s\n", k.Kata, title)
		layers := fmt.Sprintf("%d/%d", len(k.LayersRead), k.LayersTotal)
		if len(k.LayersRead) > 0 {
			layers += " (" + strings.Join(k.LayersRead, ", ") + ")"
		}
		row(0, layers)
		answered := loc.T("stats.answered", "Answered", k.Answered, "Correct", k.Correct)
		if k.InProgress > 0 {
			answered += " " + loc.T("stats.in_progress", "N", k.InProgress)
		}
		row(1, answered)
		best := loc.T("stats.none_yet")
		if k.BestScaled > 0 {
			best = loc.T("stats.best_on", "Scaled", k.BestScaled, "Day", day(k.BestAt))
		}
		row(2, best)
		grade := loc.T("stats.never_graded")
		if g := k.LastGrade; g != nil {
			grade = loc.T("stats.grade_line", "Status", loc.T("stats.status_"+g.Status), "Passed", g.Passed, "Failed", g.Failed, "Errored", g.Errored, "Day", day(g.At), "Seed", g.Seed)
		}
		row(3, grade)
		row(4, loc.N("stats.cards_line", k.Cards, "Due", k.Due))
		fmt.Fprintln(w)
	}
	// The totals come on short lines so that none is wider than an 80-column terminal (bar a
	// long workspace path or kata list).
	s := r.Stats
	fmt.Fprintf(w, "%s (%s", loc.T("stats.totals", "Answers", loc.N("count.answer", s.Answered)), loc.T("stats.right", "N", s.Correct))
	if s.InProgress > 0 {
		fmt.Fprintf(w, ", %s", loc.T("stats.unscored", "N", s.InProgress))
	}
	fmt.Fprintf(w, ") · %s\n", loc.N("count.review", s.Reviews))
	fmt.Fprintf(w, "  %s", loc.T("stats.exams", "Finished", s.AttemptsFinished, "Open", s.AttemptsOpen, "Abandoned", s.AttemptsAbandoned))
	if s.BestScaled > 0 {
		fmt.Fprintf(w, " · %s", loc.T("stats.best_total", "N", s.BestScaled))
	}
	fmt.Fprintf(w, "\n  %s · %s\n", loc.N("count.grading_run", s.GradeRuns), loc.T("stats.cards_due", "Cards", loc.N("count.card", s.Cards), "Due", s.Due))
	if g := s.LastGrade; g != nil {
		fmt.Fprintf(w, "%s\n  %s\n", loc.T("stats.last_run", "Status", loc.T("stats.status_"+g.Status), "At", g.At.Local().Format("2006-01-02 15:04")), g.Workspace)
	}
	if o := r.Open; o != nil {
		fmt.Fprintln(w, loc.T("stats.open", "ID", o.ID, "Started", o.Started.Local().Format("2006-01-02 15:04")))
		fmt.Fprintf(w, "  %s\n  %s\n", loc.T("stats.open_counts", "Answered", o.Answered, "Items", o.Items, "Complete", o.Complete, "Flagged", o.Flagged),
			loc.T("stats.open_katas", "Katas", strings.Join(o.Katas, ", ")))
	}
}

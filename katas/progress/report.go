package progress

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

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

// WriteText writes the readable summary of `kata stats`.
func (r *Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "Progress in %s\n(answers count exam items and trap rows, in exams, quizzes, drills and reviews)\n\n", r.Path)
	for _, k := range r.Katas {
		title := k.Title
		if title == "" {
			title = "(not in this build's packets)"
		}
		fmt.Fprintf(w, "%s — %s\n", k.Kata, title)
		layers := fmt.Sprintf("%d/%d", len(k.LayersRead), k.LayersTotal)
		if len(k.LayersRead) > 0 {
			layers += " (" + strings.Join(k.LayersRead, ", ") + ")"
		}
		fmt.Fprintf(w, "  layers read    %s\n", layers)
		answered := fmt.Sprintf("%d, %d right", k.Answered, k.Correct)
		if k.InProgress > 0 {
			answered += fmt.Sprintf(" (%d marked in an unfinished exam, not yet scored)", k.InProgress)
		}
		fmt.Fprintf(w, "  answers        %s\n", answered)
		best := "none yet"
		if k.BestScaled > 0 {
			best = fmt.Sprintf("%d on %s", k.BestScaled, day(k.BestAt))
		}
		fmt.Fprintf(w, "  best exam      %s\n", best)
		grade := "never graded"
		if g := k.LastGrade; g != nil {
			grade = fmt.Sprintf("%s (%d passed, %d failed, %d errored) on %s, seed %d", g.Status, g.Passed, g.Failed, g.Errored, day(g.At), g.Seed)
		}
		fmt.Fprintf(w, "  last grade     %s\n", grade)
		fmt.Fprintf(w, "  cards          %d due now of %d scheduled\n\n", k.Due, k.Cards)
	}
	// The totals come on short lines so that none is wider than an 80-column terminal (bar a
	// long workspace path or kata list).
	s := r.Stats
	fmt.Fprintf(w, "Totals: %s (%d right", katas.Count(s.Answered, "answer", "answers"), s.Correct)
	if s.InProgress > 0 {
		fmt.Fprintf(w, ", %d unscored in an unfinished exam", s.InProgress)
	}
	fmt.Fprintf(w, ") · %s\n", katas.Count(s.Reviews, "review", "reviews"))
	fmt.Fprintf(w, "  exams %d finished, %d open, %d abandoned", s.AttemptsFinished, s.AttemptsOpen, s.AttemptsAbandoned)
	if s.BestScaled > 0 {
		fmt.Fprintf(w, " · best %d", s.BestScaled)
	}
	fmt.Fprintf(w, "\n  %s · %s, %d due now\n", katas.Count(s.GradeRuns, "grading run", "grading runs"), katas.Count(s.Cards, "card", "cards"), s.Due)
	if g := s.LastGrade; g != nil {
		fmt.Fprintf(w, "Last grading run: %s on %s\n  %s\n", g.Status, g.At.Local().Format("2006-01-02 15:04"), g.Workspace)
	}
	if o := r.Open; o != nil {
		fmt.Fprintf(w, "Unfinished exam #%d, started %s (kata exam offers to resume it)\n", o.ID, o.Started.Local().Format("2006-01-02 15:04"))
		fmt.Fprintf(w, "  %d of %d items marked (%d fully answered), %d flagged\n  katas: %s\n",
			o.Answered, o.Items, o.Complete, o.Flagged, strings.Join(o.Katas, ", "))
	}
}

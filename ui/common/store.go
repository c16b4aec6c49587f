package common

import (
	"fmt"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/internal/progress"
	"github.com/kata-mcp/kata/katas/srs"
)

// Store is the progress store the interface writes to and reads from; *progress.Store
// implements it. Every call runs in a command, never in Update; a failing call shows a
// one-line warning and the screens go on with what they hold in memory.
type Store interface {
	LayerRead(kata, layer string, at time.Time) error
	RecordAnswer(a progress.Answer) error
	StartAttempt(a progress.Attempt) (int64, error)
	OpenAttempt() (*progress.Attempt, error)
	SaveExamAnswer(attemptID int64, ref string, chosen []string, flagged bool, at time.Time) error
	ExamAnswers(attemptID int64) (map[string]progress.ExamAnswer, error)
	FinishAttempt(a progress.Attempt, answers []progress.Answer) error
	AbandonAttempt(id int64) error
	RecordGrade(g progress.GradeRun) error
	LastGradeIn(kata, workspace string) (*progress.GradeRun, error)
	Due(now time.Time, katas []string) ([]progress.DueCard, error)
	Cards(kata string) (map[string]srs.Card, error)
	Summary(kata string, now time.Time) (progress.KataSummary, error)
	SetLanguage(kata, lang string, at time.Time) error
	Language(kata string) (string, error)
}

var _ Store = (*progress.Store)(nil)

// StoreErrMsg reports a failed store call; the root shows it as a one-line warning.
type StoreErrMsg struct {
	Op  string // what was being saved or read, e.g. "saving the answer"
	Err error
}

// String formats a store failure for the warning line.
func (m StoreErrMsg) String() string { return fmt.Sprintf("progress not saved (%s): %v", m.Op, m.Err) }

// ProgressChangedMsg says the store was written: the catalog refreshes its summaries.
type ProgressChangedMsg struct{}

// writer runs store writes in order: a write for a key (an exam item) that is older than one
// already done is skipped, so answers saved from concurrent commands never land out of order.
type writer struct {
	mu   sync.Mutex
	seq  uint64
	done map[string]uint64
}

// next returns the sequence number of a new write.
func (w *writer) next() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seq++
	return w.seq
}

// run performs fn for key at seq unless a later write for key already ran (an empty key never
// skips: every practice answer is its own row).
func (w *writer) run(key string, seq uint64, fn func() error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if key != "" {
		if w.done == nil {
			w.done = map[string]uint64{}
		}
		if w.done[key] > seq {
			return nil
		}
		w.done[key] = seq
	}
	return fn()
}

// Write returns a command running fn on the store in order for key; it answers with ok() (also
// when skipped as superseded), or a StoreErrMsg naming op. Without a store it returns nil.
func (c Common) Write(key, op string, fn func(Store) error, ok func() tea.Msg) tea.Cmd {
	if c.Store == nil {
		return nil
	}
	w := &c.sh.writer
	seq := w.next()
	st := c.Store
	return func() tea.Msg {
		err := w.run(key, seq, func() error { return fn(st) })
		switch {
		case err != nil:
			return StoreErrMsg{Op: op, Err: err}
		case ok == nil:
			return nil
		default:
			return ok()
		}
	}
}

// Read returns a command running fn on the store, answering with its message, or a StoreErrMsg
// naming op when it fails. Without a store it returns nil.
func (c Common) Read(op string, fn func(Store) (tea.Msg, error)) tea.Cmd {
	if c.Store == nil {
		return nil
	}
	st := c.Store
	return func() tea.Msg {
		msg, err := fn(st)
		if err != nil {
			return StoreErrMsg{Op: op, Err: err}
		}
		return msg
	}
}

// Changed is the ok message of writes the catalog's summaries depend on.
func Changed() tea.Msg { return ProgressChangedMsg{} }

// RecordAnswer records a practice answer (quiz, drill, review), which also reviews its card.
func (c Common) RecordAnswer(a progress.Answer) tea.Cmd {
	return c.Write("", c.T("store.recording_answer"), func(s Store) error { return s.RecordAnswer(a) }, Changed)
}

// LayerRead records that a layer was opened.
func (c Common) LayerRead(kata, layer string) tea.Cmd {
	at := c.Now()
	return c.Write("layer:"+kata+"/"+layer, c.T("store.recording_layer"), func(s Store) error { return s.LayerRead(kata, layer, at) }, Changed)
}

// LanguageMsg says the workspace language chosen for a kata (read from the store, or just
// chosen); the catalog and the kata's task screen both show it.
type LanguageMsg struct{ Kata, Language string }

// SetLanguage records lang as kata's workspace language; every page hears of it (LanguageMsg),
// also without a store, when nothing is saved.
func (c Common) SetLanguage(kata, lang string) tea.Cmd {
	msg := LanguageMsg{Kata: kata, Language: lang}
	at := c.Now()
	w := c.Write("language:"+kata, c.T("store.recording_language"), func(s Store) error { return s.SetLanguage(kata, lang, at) }, func() tea.Msg { return msg })
	if w == nil {
		return Send(msg)
	}
	return w
}

// NextLanguage is the language after cur in langs (the first when cur is not one of them), for
// a key that steps through a packet's template languages.
func NextLanguage(langs []string, cur string) string {
	if len(langs) == 0 {
		return cur
	}
	for i, l := range langs {
		if l == cur {
			return langs[(i+1)%len(langs)]
		}
	}
	return langs[0]
}

// Warn returns a command reporting err as a store failure while doing op; nil when err is nil.
func Warn(op string, err error) tea.Cmd {
	if err == nil {
		return nil
	}
	return func() tea.Msg { return StoreErrMsg{Op: op, Err: err} }
}

package common

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// examSaves is a Store that only takes exam answer saves (any other call panics: the embedded
// nil interface).
type examSaves struct {
	Store
	saved [][]string
}

func (s *examSaves) SaveExamAnswer(_ int64, _ string, chosen []string, _ bool, _ time.Time) error {
	s.saved = append(s.saved, chosen)
	return nil
}

// TestWriterSkipsSupersededSaves: two saves of one exam item whose commands run in the wrong
// order leave the newer answer, and the older one never runs.
func TestWriterSkipsSupersededSaves(t *testing.T) {
	st := &examSaves{}
	c := New(nil, Config{Store: st})
	save := func(choice string) tea.Cmd {
		return c.Write("exam:1:k/i", "saving the answer", func(s Store) error {
			return s.SaveExamAnswer(1, "k/i", []string{choice}, false, time.Time{})
		}, nil)
	}
	older, newer := save("a"), save("b")
	newer()
	older()
	if len(st.saved) != 1 || st.saved[0][0] != "b" {
		t.Errorf("saves %v, want only [b]", st.saved)
	}
}

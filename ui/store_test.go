package ui

import (
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/kata-mcp/kata/internal/progress"
	"github.com/kata-mcp/kata/katas/srs"
)

// memStore is an in-memory Store for the model tests: it keeps what the interface writes so the
// tests can check it, and fails every call when fail is set.
type memStore struct {
	mu       sync.Mutex
	fail     error
	layers   map[string]bool // "kata/layer"
	answers  []progress.Answer
	attempts []*progress.Attempt
	exam     map[int64]map[string]progress.ExamAnswer
	finished map[int64][]progress.Answer
	grades   []progress.GradeRun
	due      []progress.DueCard
	cards    map[string]map[string]srs.Card // kata → card id → card
	saves    int
	langs    map[string]string // kata → chosen language
}

func newMemStore() *memStore {
	return &memStore{layers: map[string]bool{}, exam: map[int64]map[string]progress.ExamAnswer{}, finished: map[int64][]progress.Answer{}, cards: map[string]map[string]srs.Card{}}
}

func (s *memStore) LayerRead(kata, layer string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	s.layers[kata+"/"+layer] = true
	return nil
}

func (s *memStore) RecordAnswer(a progress.Answer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	s.answers = append(s.answers, a)
	if s.cards[a.Kata] == nil {
		s.cards[a.Kata] = map[string]srs.Card{}
	}
	s.cards[a.Kata][a.CardID] = srs.Card{Reps: 1}
	return nil
}

func (s *memStore) StartAttempt(a progress.Attempt) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return 0, s.fail
	}
	a.ID = int64(len(s.attempts) + 1)
	s.attempts = append(s.attempts, &a)
	return a.ID, nil
}

func (s *memStore) OpenAttempt() (*progress.Attempt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return nil, s.fail
	}
	for i := len(s.attempts) - 1; i >= 0; i-- {
		if a := s.attempts[i]; a.Finished.IsZero() && a.Max >= 0 {
			c := *a
			return &c, nil
		}
	}
	return nil, nil
}

func (s *memStore) SaveExamAnswer(id int64, ref string, chosen []string, flagged bool, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	if s.exam[id] == nil {
		s.exam[id] = map[string]progress.ExamAnswer{}
	}
	s.exam[id][ref] = progress.ExamAnswer{Chosen: append([]string(nil), chosen...), Flagged: flagged, At: at}
	s.saves++
	return nil
}

func (s *memStore) ExamAnswers(id int64) (map[string]progress.ExamAnswer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return nil, s.fail
	}
	out := map[string]progress.ExamAnswer{}
	for k, v := range s.exam[id] {
		out[k] = v
	}
	return out, nil
}

func (s *memStore) FinishAttempt(a progress.Attempt, answers []progress.Answer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	for _, x := range s.attempts {
		if x.ID == a.ID {
			*x = a
			s.finished[a.ID] = answers
			return nil
		}
	}
	return errors.New("no such attempt")
}

func (s *memStore) AbandonAttempt(id int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	for _, x := range s.attempts {
		if x.ID == id {
			x.Max = -1 // abandoned
		}
	}
	return nil
}

func (s *memStore) RecordGrade(g progress.GradeRun) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	s.grades = append(s.grades, g)
	return nil
}

func (s *memStore) LastGradeIn(kata, workspace string) (*progress.GradeRun, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return nil, s.fail
	}
	for i := len(s.grades) - 1; i >= 0; i-- {
		if g := s.grades[i]; g.Kata == kata && g.Workspace == workspace {
			return &g, nil
		}
	}
	return nil, nil
}

func (s *memStore) Due(now time.Time, katas []string) ([]progress.DueCard, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return nil, s.fail
	}
	return s.due, nil
}

func (s *memStore) Cards(kata string) (map[string]srs.Card, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return nil, s.fail
	}
	out := map[string]srs.Card{}
	for k, v := range s.cards[kata] {
		out[k] = v
	}
	for _, d := range s.due {
		if d.Kata == kata {
			out[d.CardID] = d.Card
		}
	}
	return out, nil
}

func (s *memStore) Summary(kata string, now time.Time) (progress.KataSummary, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return progress.KataSummary{}, s.fail
	}
	var sum progress.KataSummary
	for k := range s.layers {
		if len(k) > len(kata) && k[:len(kata)+1] == kata+"/" {
			sum.LayersRead = append(sum.LayersRead, k[len(kata)+1:])
		}
	}
	slices.Sort(sum.LayersRead)
	for _, a := range s.attempts {
		if !a.Finished.IsZero() && a.Scaled > sum.BestScaled {
			sum.BestScaled = a.Scaled
			sum.BestExam = &progress.ExamScore{Scaled: a.Scaled, Points: a.Points, Max: a.Max, Finished: a.Finished}
		}
	}
	sum.Language = s.langs[kata]
	for i := range s.grades {
		if s.grades[i].Kata == kata {
			sum.LastGrade = &s.grades[i]
		}
	}
	for _, d := range s.due {
		if d.Kata == kata {
			sum.Due++
		}
	}
	return sum, nil
}

func (s *memStore) SetLanguage(kata, lang string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	if s.langs == nil {
		s.langs = map[string]string{}
	}
	s.langs[kata] = lang
	return nil
}

func (s *memStore) Language(kata string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return "", s.fail
	}
	return s.langs[kata], nil
}

// attempt returns attempt id.
func (s *memStore) attempt(id int64) progress.Attempt {
	s.mu.Lock()
	defer s.mu.Unlock()
	return *s.attempts[id-1]
}

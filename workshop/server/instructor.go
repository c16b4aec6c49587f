package server

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/workshop"
	"github.com/kata-mcp/kata/workshop/board"
	"github.com/kata-mcp/kata/workshop/store"
)

// Workshop is one workshop as its instructor drives it from this process: the board to draw and
// the instructor's actions (the same the HTTP API offers with an instructor token).
type Workshop struct {
	h *hub
}

// Code is the workshop's join code.
func (c *Workshop) Code() string { return c.h.ws.Code }

// Katas are the workshop's kata ids.
func (c *Workshop) Katas() []string { return c.h.ws.Katas }

// View takes the board now.
func (c *Workshop) View() board.View { return c.h.view() }

// State is what the instructor has published.
func (c *Workshop) State() workshop.State { return c.h.state() }

// Changed returns a channel closed at the board's next change.
func (c *Workshop) Changed() <-chan struct{} {
	c.h.mu.Lock()
	defer c.h.mu.Unlock()
	return c.h.changed
}

// errBadRequest marks an instructor request the API answers with 400 or 404. Its text is a
// catalog message: the API answers in English, the terminal board in the instructor's
// language (i18n.Localizer.Error finds it through Unwrap).
type errBadRequest struct {
	code string
	msg  i18n.Msg
}

func (e *errBadRequest) Error() string { return e.msg.English() }

func (e *errBadRequest) Unwrap() error { return &i18n.Error{Msg: e.msg} }

// badRequest is the error of message id with the template fields kv (i18n.M).
func badRequest(code, id string, kv ...any) error {
	return &errBadRequest{code: code, msg: i18n.M(id, kv...)}
}

// errNoQuiz: no live quiz to reveal or close.
var errNoQuiz = i18n.Err("workshop.board.no_quiz")

// notOurs is the error for a kata that is not one of the workshop's.
func (c *Workshop) notOurs(kata string) error {
	return badRequest(workshop.ErrNotFound, "workshop.board.not_ours", "Kata", strconv.Quote(kata), "Katas", fmt.Sprint(c.h.ws.Katas))
}

// append stores instructor events and applies them.
func (c *Workshop) append(ctx context.Context, evs []workshop.Event) error {
	now := c.h.s.now()
	for i := range evs {
		evs[i].ID = newID("i")
		evs[i].At = now
	}
	stored, _, err := c.h.s.store.Append(ctx, c.h.ws.ID, "", evs, now)
	if err != nil {
		return err
	}
	c.h.offer(stored)
	return nil
}

// packets are the workshop's packets, in order (a kata missing from the library is skipped).
func (c *Workshop) packets() []*katas.Packet {
	var ps []*katas.Packet
	for _, id := range c.h.ws.Katas {
		if p, ok := c.h.s.lib.Get(id); ok {
			ps = append(ps, p)
		}
	}
	return ps
}

// Pace opens the first r.Layers layers and r.Steps task steps of r.Kata (every kata when
// empty), each clamped to what the kata has; a zero leaves that part as it is.
func (c *Workshop) Pace(ctx context.Context, r workshop.PacingRequest) (workshop.State, error) {
	if r.Layers < 0 || r.Steps < 0 {
		return workshop.State{}, badRequest(workshop.ErrInvalid, "workshop.board.count_from_1")
	}
	cur := c.State()
	var evs []workshop.Event
	for _, p := range c.packets() {
		if r.Kata != "" && p.ID != r.Kata {
			continue
		}
		pc, ok := cur.Pacing[p.ID]
		if !ok {
			pc = workshop.Pacing{Kata: p.ID, Layers: len(p.Layers), Steps: len(p.Task.Steps)}
		}
		if r.Layers > 0 {
			pc.Layers = min(r.Layers, len(p.Layers))
		}
		if r.Steps > 0 {
			pc.Steps = min(r.Steps, len(p.Task.Steps))
		}
		evs = append(evs, workshop.Event{Kind: workshop.KindPacing, Kata: p.ID, Pacing: &pc})
	}
	if len(evs) == 0 {
		return workshop.State{}, c.notOurs(r.Kata)
	}
	if err := c.append(ctx, evs); err != nil {
		return workshop.State{}, err
	}
	return c.State(), nil
}

// maxLiveItems is how many items one live quiz asks at most.
const maxLiveItems = 20

// StartQuiz starts a live quiz of r.Items of r.Kata (the workshop's first kata when empty),
// or of its next r.Count items (default 1) not asked live before, in the packet's order.
// A quiz under way is replaced.
func (c *Workshop) StartQuiz(ctx context.Context, r workshop.QuizRequest) (workshop.Quiz, error) {
	ps := c.packets()
	if len(ps) == 0 {
		return workshop.Quiz{}, badRequest(workshop.ErrNotFound, "workshop.board.no_known_kata")
	}
	p := ps[0]
	if r.Kata != "" {
		i := slices.IndexFunc(ps, func(p *katas.Packet) bool { return p.ID == r.Kata })
		if i < 0 {
			return workshop.Quiz{}, c.notOurs(r.Kata)
		}
		p = ps[i]
	}
	items := r.Items
	for _, id := range items {
		if !slices.ContainsFunc(p.Items, func(it katas.Item) bool { return it.ID == id }) {
			return workshop.Quiz{}, badRequest(workshop.ErrNotFound, "workshop.board.no_item", "Kata", p.ID, "Item", strconv.Quote(id))
		}
	}
	if len(items) == 0 {
		n := max(r.Count, 1)
		c.h.mu.Lock()
		for _, it := range p.Items {
			if len(items) < n && !c.h.board.Asked(p.ID, it.ID) {
				items = append(items, it.ID)
			}
		}
		c.h.mu.Unlock()
		if len(items) == 0 {
			return workshop.Quiz{}, badRequest(workshop.ErrNotFound, "workshop.board.all_asked", "Kata", p.ID)
		}
	}
	if len(items) > maxLiveItems {
		return workshop.Quiz{}, badRequest(workshop.ErrInvalid, "workshop.board.too_many", "N", maxLiveItems)
	}
	q := workshop.Quiz{ID: newID("q"), Kata: p.ID, Items: items, State: workshop.QuizOpen}
	if err := c.append(ctx, []workshop.Event{{Kind: workshop.KindQuiz, Kata: p.ID, Quiz: &q}}); err != nil {
		return workshop.Quiz{}, err
	}
	return q, nil
}

// Reveal shows everyone the live quiz's key, rationales and answer distribution.
func (c *Workshop) Reveal(ctx context.Context) (workshop.Quiz, error) {
	c.h.mu.Lock()
	st := c.h.board.State()
	var dist map[string]map[string]int
	if st.Quiz != nil {
		dist = c.h.board.Distribution(st.Quiz.ID)
	}
	c.h.mu.Unlock()
	if st.Quiz == nil {
		return workshop.Quiz{}, errNoQuiz
	}
	q := *st.Quiz
	q.State, q.Distribution = workshop.QuizRevealed, dist
	if err := c.append(ctx, []workshop.Event{{Kind: workshop.KindQuiz, Kata: q.Kata, Quiz: &q}}); err != nil {
		return workshop.Quiz{}, err
	}
	return q, nil
}

// CloseQuiz ends the live quiz.
func (c *Workshop) CloseQuiz(ctx context.Context) (workshop.State, error) {
	st := c.State()
	if st.Quiz == nil {
		return workshop.State{}, errNoQuiz
	}
	q := workshop.Quiz{ID: st.Quiz.ID, Kata: st.Quiz.Kata, State: workshop.QuizClosed}
	if err := c.append(ctx, []workshop.Event{{Kind: workshop.KindQuiz, Kata: q.Kata, Quiz: &q}}); err != nil {
		return workshop.State{}, err
	}
	return c.State(), nil
}

// Close closes the workshop: the join code expires, learners' events are refused.
func (c *Workshop) Close(ctx context.Context) (workshop.State, error) {
	if err := c.append(ctx, []workshop.Event{{Kind: workshop.KindClosed}}); err != nil {
		return workshop.State{}, err
	}
	return c.State(), nil
}

// Lock locks the workshop (no new learner may join; those in it stay) or unlocks it.
func (c *Workshop) Lock(ctx context.Context, locked bool) (workshop.State, error) {
	if err := c.append(ctx, []workshop.Event{{Kind: workshop.KindLock, Locked: locked}}); err != nil {
		return workshop.State{}, err
	}
	return c.State(), nil
}

// Say shows message on every learner's screen: 1–MaxMessage printable characters.
func (c *Workshop) Say(ctx context.Context, message string) (workshop.State, error) {
	message = strings.TrimSpace(message)
	n := utf8.RuneCountInString(message)
	if n == 0 || n > workshop.MaxMessage || !utf8.ValidString(message) || strings.IndexFunc(message, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return workshop.State{}, badRequest(workshop.ErrInvalid, "workshop.board.bad_message", "Max", workshop.MaxMessage)
	}
	if err := c.append(ctx, []workshop.Event{{Kind: workshop.KindSay, Message: message}}); err != nil {
		return workshop.State{}, err
	}
	return c.State(), nil
}

// Remove removes the learner present whose name (as the board shows it) is name: they leave
// the board and their token stops working. To keep them out, lock the workshop too.
func (c *Workshop) Remove(ctx context.Context, name string) (store.Learner, error) {
	id := c.h.learnerNamed(name)
	if id == "" {
		return store.Learner{}, badRequest(workshop.ErrNotFound, "workshop.board.no_learner", "Name", name)
	}
	l := store.Learner{ID: id, Workshop: c.h.ws.ID, Name: name}
	ev, err := c.h.s.store.Leave(ctx, l, c.h.s.now())
	if err != nil {
		return store.Learner{}, err
	}
	c.h.offer([]workshop.Event{ev})
	return l, nil
}

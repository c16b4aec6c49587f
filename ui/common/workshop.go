package common

import (
	"context"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/internal/progress"
	"github.com/kata-mcp/kata/workshop/learner"
)

// Workshop is the learner's link to an instructor's workshop; *learner.Agent implements it.
// Join and Leave talk to the server and run in commands, never in Update.
type Workshop interface {
	Join(ctx context.Context, joinURL, name string) (*progress.Membership, error)
	Leave(ctx context.Context) (int, error)
	Status() learner.Status
	Updates() <-chan learner.Status
	AnswerLive(a progress.Answer, quiz string) error
}

var _ Workshop = (*learner.Agent)(nil)

// WorkshopMsg carries the workshop link's status each time it changes (the root reads
// Workshop.Updates and gives every page the message).
type WorkshopMsg struct{ Status learner.Status }

// ShowJoinMsg asks for the join screen.
type ShowJoinMsg struct{}

// workshopState is the latest status, shared by every Common copy.
type workshopState struct {
	mu sync.Mutex
	st learner.Status
}

// SetWorkshop records the latest status (the root does, on each WorkshopMsg).
func (c Common) SetWorkshop(st learner.Status) {
	c.sh.ws.mu.Lock()
	c.sh.ws.st = st
	c.sh.ws.mu.Unlock()
}

// WorkshopStatus is the latest status of the workshop link (Conn is learner.NotJoined
// outside a workshop).
func (c Common) WorkshopStatus() learner.Status {
	c.sh.ws.mu.Lock()
	defer c.sh.ws.mu.Unlock()
	return c.sh.ws.st
}

// LayerOpen reports whether layer index i (0-based) of kata is open: always outside a
// workshop; in one, when the instructor has opened it.
func (c Common) LayerOpen(kata string, i int) bool {
	return c.WorkshopStatus().State.LayerOpen(kata, i)
}

// StepOpen reports whether task step n of kata is open (see LayerOpen).
func (c Common) StepOpen(kata string, n int) bool {
	return c.WorkshopStatus().State.StepOpen(kata, n)
}

// Locked is what a locked layer or task step says.
const Locked = "opens when your instructor says"

// WaitWorkshop returns the command that waits for the workshop link's next status; nil
// without a link, or when its Updates channel is nil (a link whose statuses are given to
// the root as WorkshopMsg by other means, as tests do).
func (c Common) WaitWorkshop() tea.Cmd {
	if c.Workshop == nil {
		return nil
	}
	ch := c.Workshop.Updates()
	if ch == nil {
		return nil
	}
	return func() tea.Msg { return WorkshopMsg{Status: <-ch} }
}

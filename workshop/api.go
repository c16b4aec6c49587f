package workshop

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// API paths (relative to the server's base URL).
const (
	PathJoin        = "/api/join"         // POST JoinRequest → JoinResponse (no token)
	PathLeave       = "/api/leave"        // POST, learner token
	PathEvents      = "/api/events"       // POST EventsRequest → EventsResponse, learner token
	PathState       = "/api/state"        // GET State, learner or instructor token
	PathStream      = "/api/stream"       // GET SSE of published events, learner token
	PathPacing      = "/api/pacing"       // POST PacingRequest → State, instructor token
	PathQuiz        = "/api/quiz"         // POST QuizRequest → Quiz, instructor token
	PathQuizReveal  = "/api/quiz/reveal"  // POST → Quiz, instructor token
	PathQuizClose   = "/api/quiz/close"   // POST → State, instructor token
	PathClose       = "/api/close"        // POST → State: closes the workshop, instructor token
	PathLock        = "/api/lock"         // POST LockRequest → State, instructor token
	PathSay         = "/api/say"          // POST SayRequest → State, instructor token
	PathRemove      = "/api/remove"       // POST RemoveRequest → RemoveResponse, instructor token
	PathBoard       = "/api/board"        // GET the board view as JSON, instructor token
	PathBoardStream = "/api/board/stream" // GET SSE of board updates, instructor token or cookie
	PathBoardPage   = "/board"            // GET the board as a web page, instructor token or cookie
)

// SSE event names (the "event:" field of a Server-Sent Event).
const (
	// SSEState carries a State: the whole published state, first on a learner stream that
	// has no Last-Event-ID or is too far behind.
	SSEState = "state"
	// SSEEvent carries one published Event.
	SSEEvent = "event"
	// SSEBoard carries a whole board view; SSEUpdate the rows and summary that changed.
	SSEBoard  = "board"
	SSEUpdate = "update"
)

// JoinRequest joins a workshop by its code.
type JoinRequest struct {
	Code string `json:"code"`
	// Name is how the board shows the learner: 1–MaxName characters, printable.
	Name string `json:"name"`
}

// JoinResponse is what a learner gets on joining: their id and token (shown once; the
// server keeps only its hash), the workshop, and what the instructor has published so far.
type JoinResponse struct {
	Learner string `json:"learner"`
	// Name is the name the board shows: the one asked for, or, when another learner present
	// has it, the same with a number ("Ben (2)").
	Name     string `json:"name,omitempty"`
	Token    string `json:"token"`
	Workshop Info   `json:"workshop"`
	State    State  `json:"state"`
}

// LockRequest locks (Locked) or unlocks the workshop.
type LockRequest struct {
	Locked bool `json:"locked"`
}

// SayRequest is the instructor's message to every learner.
type SayRequest struct {
	Message string `json:"message"`
}

// RemoveRequest names the learner to remove (the name the board shows).
type RemoveRequest struct {
	Name string `json:"name"`
}

// RemoveResponse names the learner removed.
type RemoveResponse struct {
	Learner string `json:"learner"`
	Name    string `json:"name"`
}

// Info describes a workshop.
type Info struct {
	Code  string   `json:"code"`
	Katas []string `json:"katas"`
	// Created is when the instructor opened it; Closed when it was closed (zero while open).
	Created time.Time `json:"created"`
	Closed  time.Time `json:"closed,omitzero"`
}

// EventsRequest carries up to MaxBatch learner events.
type EventsRequest struct {
	Events []Event `json:"events"`
}

// EventsResponse says what became of each event sent: Accepted were stored, Duplicates had
// been stored before (a resend), Rejected failed a check and will never be accepted (the
// sender drops them).
type EventsResponse struct {
	Accepted   int        `json:"accepted"`
	Duplicates int        `json:"duplicates"`
	Rejected   []Rejected `json:"rejected,omitempty"`
}

// Rejected names an event the server refused and why.
type Rejected struct {
	ID    string `json:"id"`
	Error string `json:"error"`
}

// PacingRequest opens (or closes again) layers and task steps: for Kata, or every kata of
// the workshop when Kata is empty, the first Layers layers and the first Steps steps are
// open. A zero Layers or Steps leaves that part as it is.
type PacingRequest struct {
	Kata   string `json:"kata,omitempty"`
	Layers int    `json:"layers,omitempty"`
	Steps  int    `json:"steps,omitempty"`
}

// QuizRequest starts a live quiz of Kata's Items; with no Items, the next Count (default 1)
// items of the kata not asked live before, in the packet's order.
type QuizRequest struct {
	Kata  string   `json:"kata,omitempty"`
	Items []string `json:"items,omitempty"`
	Count int      `json:"count,omitempty"`
}

// Error codes of APIError.
const (
	ErrMalformed    = "malformed_json"  // 400: the body is not the JSON expected
	ErrInvalid      = "invalid"         // 400/422: a field is wrong (Message names it)
	ErrNoToken      = "no_token"        // 401: no Authorization: Bearer token
	ErrBadToken     = "bad_token"       // 401: the token is unknown
	ErrForbidden    = "forbidden"       // 403: the token may not do this
	ErrNotFound     = "not_found"       // 404: no such workshop code, path or item
	ErrMethod       = "method"          // 405
	ErrClosed       = "closed"          // 410: the workshop is closed; its code has expired
	ErrTooLarge     = "too_large"       // 413: the body is over MaxBody or MaxBatch events
	ErrContentType  = "content_type"    // 415: the body is not application/json
	ErrRateLimited  = "rate_limited"    // 429: too many requests; Retry-After says when to retry
	ErrFull         = "workshop_full"   // 409: the workshop has its most learners
	ErrLocked       = "locked"          // 403: the instructor locked the workshop: no new learner
	ErrRemoved      = "removed"         // 403: this learner left or was removed; join again
	ErrTooManyJoins = "too_many_joins"  // 403: this address joined its most learners
	ErrUnavailable  = "unavailable"     // 503: the store failed; try again
	ErrConflict     = "quiz_not_active" // 409: no live quiz to reveal or close
)

// APIError is the JSON body of every 4xx and 5xx answer: {"error": code, "message": text}.
type APIError struct {
	// Status is the HTTP status (not in the body).
	Status int `json:"-"`
	// Code is one of the Err… codes; Message says what was wrong, for a person.
	Code    string `json:"error"`
	Message string `json:"message"`
	// RetryAfter is the Retry-After header's delay (RFC 9110 §10.2.3), 0 when absent.
	RetryAfter time.Duration `json:"-"`
}

// Error is "409 workshop_full: …".
func (e *APIError) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
}

// Permanent reports whether retrying the same request cannot succeed: a 4xx other than
// 408 and 429.
func (e *APIError) Permanent() bool {
	return e.Status >= 400 && e.Status < 500 && e.Status != http.StatusRequestTimeout && e.Status != http.StatusTooManyRequests
}

// IsCode reports whether err is an *APIError with code.
func IsCode(err error, code string) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Code == code
}

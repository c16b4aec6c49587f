package workshop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Client speaks the workshop API to one server with one token (a learner's or an
// instructor's; none for Join).
type Client struct {
	// Base is the server's base URL ("http://10.0.0.5:7878").
	Base string
	// Token is sent as "Authorization: Bearer TOKEN" (RFC 6750 §2.1) when set.
	Token string
	// HTTP is the client requests go through; nil means one with a 15-second timeout for
	// plain requests (streams have none).
	HTTP *http.Client
}

// defaultHTTP serves clients without their own.
var defaultHTTP = &http.Client{}

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return defaultHTTP
}

// requestTimeout bounds one plain request (not a stream) when the context has no deadline.
const requestTimeout = 15 * time.Second

// do sends method path with body (nil for none) as JSON and decodes a 2xx answer into out
// (nil to ignore it); any other answer becomes an *APIError.
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, requestTimeout)
		defer cancel()
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	c.authorize(req)
	resp, err := c.http().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return readError(resp)
	}
	if out == nil {
		_, err := io.Copy(io.Discard, io.LimitReader(resp.Body, MaxBody))
		return err
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16*MaxBody)).Decode(out); err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	return nil
}

func (c *Client) authorize(req *http.Request) {
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
}

// readError turns a non-2xx answer into an *APIError, from its JSON body when it has one.
func readError(resp *http.Response) error {
	ae := &APIError{Status: resp.StatusCode}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if json.Unmarshal(b, ae) != nil || ae.Code == "" {
		ae.Code = strings.ToLower(strings.ReplaceAll(http.StatusText(resp.StatusCode), " ", "_"))
		ae.Message = strings.TrimSpace(string(b))
	}
	if s := resp.Header.Get("Retry-After"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 0 {
			ae.RetryAfter = time.Duration(n) * time.Second
		} else if t, err := http.ParseTime(s); err == nil {
			ae.RetryAfter = max(time.Until(t), 0)
		}
	}
	return ae
}

// Join joins the workshop with code under name. It needs no token.
func (c *Client) Join(ctx context.Context, code, name string) (*JoinResponse, error) {
	var r JoinResponse
	if err := c.do(ctx, http.MethodPost, PathJoin, JoinRequest{Code: code, Name: name}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Leave tells the server the learner left.
func (c *Client) Leave(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, PathLeave, struct{}{}, nil)
}

// Send posts up to MaxBatch events.
func (c *Client) Send(ctx context.Context, events []Event) (*EventsResponse, error) {
	var r EventsResponse
	if err := c.do(ctx, http.MethodPost, PathEvents, EventsRequest{Events: events}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// State reads what the instructor has published.
func (c *Client) State(ctx context.Context) (*State, error) {
	var s State
	if err := c.do(ctx, http.MethodGet, PathState, nil, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// Pace opens layers and steps (instructor token).
func (c *Client) Pace(ctx context.Context, p PacingRequest) (*State, error) {
	var s State
	if err := c.do(ctx, http.MethodPost, PathPacing, p, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// StartQuiz starts a live quiz (instructor token).
func (c *Client) StartQuiz(ctx context.Context, q QuizRequest) (*Quiz, error) {
	var out Quiz
	if err := c.do(ctx, http.MethodPost, PathQuiz, q, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// RevealQuiz reveals the live quiz's key, rationales and distribution to all (instructor token).
func (c *Client) RevealQuiz(ctx context.Context) (*Quiz, error) {
	var out Quiz
	if err := c.do(ctx, http.MethodPost, PathQuizReveal, struct{}{}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CloseQuiz ends the live quiz (instructor token).
func (c *Client) CloseQuiz(ctx context.Context) (*State, error) {
	var s State
	if err := c.do(ctx, http.MethodPost, PathQuizClose, struct{}{}, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// CloseWorkshop closes the workshop: its join code expires and learners' events are refused
// (instructor token).
func (c *Client) CloseWorkshop(ctx context.Context) (*State, error) {
	var s State
	if err := c.do(ctx, http.MethodPost, PathClose, struct{}{}, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// Lock locks the workshop (no new learner may join), or unlocks it.
func (c *Client) Lock(ctx context.Context, locked bool) (*State, error) {
	var s State
	if err := c.do(ctx, http.MethodPost, PathLock, LockRequest{Locked: locked}, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// Say shows message on every learner's screen.
func (c *Client) Say(ctx context.Context, message string) (*State, error) {
	var s State
	if err := c.do(ctx, http.MethodPost, PathSay, SayRequest{Message: message}, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// Remove removes the learner the board shows as name: their token stops working.
func (c *Client) Remove(ctx context.Context, name string) (*RemoveResponse, error) {
	var r RemoveResponse
	if err := c.do(ctx, http.MethodPost, PathRemove, RemoveRequest{Name: name}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Stream opens the event stream at path (PathStream or PathBoardStream) from lastID ("" for
// the start) and calls fn for each event until fn fails, ctx ends or the connection drops;
// it returns that error (io.EOF when the server ended the stream) and the last event id
// seen, to reconnect from. A non-2xx answer is an *APIError.
func (c *Client) Stream(ctx context.Context, path, lastID string, fn func(SSE) error) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Base+path, nil)
	if err != nil {
		return lastID, err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	c.authorize(req)
	resp, err := c.http().Do(req)
	if err != nil {
		return lastID, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return lastID, readError(resp)
	}
	r := NewSSEReader(resp.Body, lastID)
	for {
		e, err := r.Next()
		if err != nil {
			return r.LastID(), err
		}
		if err := fn(e); err != nil {
			return r.LastID(), err
		}
	}
}

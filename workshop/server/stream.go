package server

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/kata-mcp/kata/workshop"
	"github.com/kata-mcp/kata/workshop/store"
)

// Stream timings.
const (
	// keepAlive is how often an idle stream sends a comment, so proxies keep it open.
	keepAlive = 15 * time.Second
	// summaryEvery is how often a board stream re-sends the summary unprompted (the idle
	// flags move with the clock).
	summaryEvery = 20 * time.Second
	// retryAfterDrop is the reconnection time streams ask clients for (the SSE "retry" field).
	retryAfterDrop = time.Second
	// writeWait bounds one write to a stream.
	writeWait = 10 * time.Second
)

// sseWriter writes Server-Sent Events to one response.
type sseWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// startSSE answers with the text/event-stream headers and the retry time.
func startSSE(w http.ResponseWriter) (*sseWriter, error) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	s := &sseWriter{w: w, rc: http.NewResponseController(w)}
	return s, s.write(workshop.SSE{Retry: retryAfterDrop, Event: "hello", Data: "{}"})
}

func (s *sseWriter) write(e workshop.SSE) error {
	s.rc.SetWriteDeadline(time.Now().Add(writeWait))
	if err := workshop.WriteSSE(s.w, e); err != nil {
		return err
	}
	return s.rc.Flush()
}

func (s *sseWriter) json(id int64, event string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.write(workshop.SSE{ID: strconv.FormatInt(id, 10), Event: event, Data: string(b)})
}

func (s *sseWriter) ping() error {
	s.rc.SetWriteDeadline(time.Now().Add(writeWait))
	if _, err := s.w.Write([]byte(": ping\n\n")); err != nil {
		return err
	}
	return s.rc.Flush()
}

// lastEventID is the Last-Event-ID the client reconnected with (-1 when none or not a number).
func lastEventID(r *http.Request) int64 {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		v = r.URL.Query().Get("last_event_id")
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// handleLearnerStream streams the published state to a learner: the whole state unless their
// Last-Event-ID is the last published event's sequence number, then again after every
// published event, each with that event's sequence number as its id.
func (s *Server) handleLearnerStream(w http.ResponseWriter, r *http.Request, _ store.Learner, h *hub, hash string) {
	if !s.limits.openStream(hash) {
		writeErr(w, http.StatusTooManyRequests, workshop.ErrRateLimited, "too many streams open with this token")
		return
	}
	defer s.limits.closeStream(hash)
	ctx, cancel := s.requestContext(r)
	defer cancel()
	sub := h.subscribe(true)
	defer h.unsubscribe(sub)
	out, err := startSSE(w)
	if err != nil {
		return
	}
	sent := lastEventID(r)
	send := func() error {
		st := h.state()
		if st.Seq == sent {
			return nil
		}
		sent = st.Seq
		return out.json(st.Seq, workshop.SSEState, st)
	}
	if send() != nil {
		return
	}
	ping := time.NewTicker(keepAlive)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-sub.ch:
			if send() != nil {
				return
			}
		case <-ping.C:
			if out.ping() != nil {
				return
			}
		}
	}
}

// handleBoardStream streams the board: the whole view first (unless the client's
// Last-Event-ID is the board's current sequence number), then an update with the rows that
// changed and the summary after every change.
func (s *Server) handleBoardStream(w http.ResponseWriter, r *http.Request, c *Workshop) {
	key := "board:" + c.Code() + ":" + s.clientAddr(r)
	if !s.limits.openStream(key) {
		writeErr(w, http.StatusTooManyRequests, workshop.ErrRateLimited, "too many board streams open from this address")
		return
	}
	defer s.limits.closeStream(key)
	ctx, cancel := s.requestContext(r)
	defer cancel()
	h := c.h
	sub := h.subscribe(false)
	defer h.unsubscribe(sub)
	out, err := startSSE(w)
	if err != nil {
		return
	}
	full := func() error {
		v := h.view()
		return out.json(v.Seq, workshop.SSEBoard, v)
	}
	if lastEventID(r) != c.View().Seq {
		if full() != nil {
			return
		}
	}
	ping := time.NewTicker(keepAlive)
	defer ping.Stop()
	summary := time.NewTicker(summaryEvery)
	defer summary.Stop()
	// send writes what changed since the last write: the rows and summary, or the whole view.
	send := func() error {
		u, whole := h.take(sub)
		if whole {
			return full()
		}
		return out.json(u.Seq, workshop.SSEUpdate, u)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-sub.ch:
			if send() != nil {
				return
			}
		case <-summary.C:
			if send() != nil {
				return
			}
		case <-ping.C:
			if out.ping() != nil {
				return
			}
		}
	}
}

package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/kata-mcp/kata/workshop"
	"github.com/kata-mcp/kata/workshop/store"
)

// routes wires every path.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(workshop.PathJoin, s.post(s.handleJoin))
	mux.HandleFunc(workshop.PathLeave, s.post(s.asLearner(s.handleLeave)))
	mux.HandleFunc(workshop.PathEvents, s.post(s.asLearner(s.handleEvents)))
	mux.HandleFunc(workshop.PathStream, s.get(s.asLearner(s.handleLearnerStream)))
	mux.HandleFunc(workshop.PathState, s.get(s.handleState))
	mux.HandleFunc(workshop.PathPacing, s.post(s.asInstructor(s.handlePacing, false)))
	mux.HandleFunc(workshop.PathQuiz, s.post(s.asInstructor(s.handleQuiz, false)))
	mux.HandleFunc(workshop.PathQuizReveal, s.post(s.asInstructor(s.handleReveal, false)))
	mux.HandleFunc(workshop.PathQuizClose, s.post(s.asInstructor(s.handleCloseQuiz, false)))
	mux.HandleFunc(workshop.PathClose, s.post(s.asInstructor(s.handleClose, false)))
	mux.HandleFunc(workshop.PathLock, s.post(s.asInstructor(s.handleLock, false)))
	mux.HandleFunc(workshop.PathSay, s.post(s.asInstructor(s.handleSay, false)))
	mux.HandleFunc(workshop.PathRemove, s.post(s.asInstructor(s.handleRemove, false)))
	mux.HandleFunc(workshop.PathBoard, s.get(s.asInstructor(s.handleBoard, true)))
	mux.HandleFunc(workshop.PathBoardStream, s.get(s.asInstructor(s.handleBoardStream, true)))
	mux.HandleFunc("/api/health", s.get(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	}))
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeErr(w, http.StatusNotFound, workshop.ErrNotFound, "no API path "+r.URL.Path)
	})
	mux.HandleFunc(workshop.PathBoardPage, s.get(s.handleBoardPage))
	mux.HandleFunc("/board.js", s.get(asset("board.js", "text/javascript; charset=utf-8")))
	mux.HandleFunc("/board.css", s.get(asset("board.css", "text/css; charset=utf-8")))
	mux.HandleFunc("/", s.get(s.handleJoinPage))
	return securityHeaders(mux)
}

// securityHeaders sets headers every answer carries: no sniffing, no framing, no referrer.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}

// writeJSON writes v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// writeErr writes the JSON error body {"error": code, "message": msg}.
func writeErr(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, workshop.APIError{Code: code, Message: msg})
}

// tooMany answers 429 with Retry-After.
func tooMany(w http.ResponseWriter, wait time.Duration, what string) {
	w.Header().Set("Retry-After", strconv.Itoa(retrySeconds(wait)))
	writeErr(w, http.StatusTooManyRequests, workshop.ErrRateLimited, fmt.Sprintf("too many %s: retry in %d s", what, retrySeconds(wait)))
}

// post admits only POST with a JSON body (or none), of at most MaxBody bytes.
func (s *Server) post(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeErr(w, http.StatusMethodNotAllowed, workshop.ErrMethod, r.Method+" "+r.URL.Path+": use POST")
			return
		}
		if r.ContentLength > workshop.MaxBody {
			writeErr(w, http.StatusRequestEntityTooLarge, workshop.ErrTooLarge, fmt.Sprintf("the body is %d bytes; the most is %d", r.ContentLength, workshop.MaxBody))
			return
		}
		if ct := r.Header.Get("Content-Type"); ct != "" {
			if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
				writeErr(w, http.StatusUnsupportedMediaType, workshop.ErrContentType, "send the body as application/json, not "+ct)
				return
			}
		}
		r.Body = http.MaxBytesReader(w, r.Body, workshop.MaxBody)
		next(w, r)
	}
}

// get admits only GET (and HEAD).
func (s *Server) get(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeErr(w, http.StatusMethodNotAllowed, workshop.ErrMethod, r.Method+" "+r.URL.Path+": use GET")
			return
		}
		next(w, r)
	}
}

// decode reads the JSON body into v; false after answering 400 or 413.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(r.Body)
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeErr(w, http.StatusRequestEntityTooLarge, workshop.ErrTooLarge, fmt.Sprintf("the body is over %d bytes", tooBig.Limit))
		return false
	case errors.Is(err, io.EOF):
		writeErr(w, http.StatusBadRequest, workshop.ErrMalformed, "the body is empty; send a JSON object")
		return false
	case err != nil:
		writeErr(w, http.StatusBadRequest, workshop.ErrMalformed, "the body is not the JSON expected: "+err.Error())
		return false
	}
	return true
}

// bearer is the request's bearer token (RFC 6750 §2.1), "" when none.
func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

// cookieName is the board page's cookie: the instructor token, HttpOnly, SameSite=Strict.
const cookieName = "kata_instructor"

// refuseToken answers 401 for a missing or unknown token, rate-limiting such requests by
// address.
func (s *Server) refuseToken(w http.ResponseWriter, r *http.Request, code, msg string) {
	if ok, wait := s.limits.allow("bad:"+s.clientAddr(r), s.limits.l.BadTokens, s.limits.l.BadTokensBurst); !ok {
		tooMany(w, wait, "requests without a valid token")
		return
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="kata"`)
	writeErr(w, http.StatusUnauthorized, code, msg)
}

// storeFailed answers 503 for a store error.
func (s *Server) storeFailed(w http.ResponseWriter, what string, err error) {
	s.log.Error(what, "err", err)
	writeErr(w, http.StatusServiceUnavailable, workshop.ErrUnavailable, what+" failed; try again")
}

// learnerFunc handles a request of an authenticated learner.
type learnerFunc func(w http.ResponseWriter, r *http.Request, l store.Learner, h *hub, hash string)

// asLearner authenticates a learner token and rate-limits it.
func (s *Server) asLearner(next learnerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tok := bearer(r)
		if tok == "" {
			s.refuseToken(w, r, workshop.ErrNoToken, "send your learner token as Authorization: Bearer TOKEN (kata join gives one)")
			return
		}
		hash := hashToken(tok)
		l, ok := s.auth.learner(hash)
		if !ok {
			var err error
			l, err = s.store.LearnerByToken(r.Context(), hash)
			switch {
			case errors.Is(err, store.ErrNotFound):
				if _, err := s.store.InstructorWorkshop(r.Context(), hash); err == nil {
					writeErr(w, http.StatusForbidden, workshop.ErrForbidden, "this is an instructor token; "+r.URL.Path+" takes a learner's")
					return
				}
				s.refuseToken(w, r, workshop.ErrBadToken, "unknown learner token: join again with kata join")
				return
			case err != nil:
				s.storeFailed(w, "checking the token", err)
				return
			}
			s.auth.putLearner(hash, l)
		}
		if ok, wait := s.limits.allow("tok:"+hash, s.limits.l.PerToken, s.limits.l.PerTokenBurst); !ok {
			tooMany(w, wait, "requests with this token")
			return
		}
		h, err := s.hubByID(r.Context(), l.Workshop)
		if err != nil {
			s.storeFailed(w, "loading the workshop", err)
			return
		}
		if h.left(l.ID) && r.URL.Path != workshop.PathLeave {
			writeErr(w, http.StatusForbidden, workshop.ErrRemoved, "you left this workshop or your instructor removed you from it: kata join to join again")
			return
		}
		next(w, r, l, h, hash)
	}
}

// instructorFunc handles a request of an authenticated instructor.
type instructorFunc func(w http.ResponseWriter, r *http.Request, c *Workshop)

// asInstructor authenticates an instructor token (Authorization, or with cookie the board's
// cookie too — only GETs take it, so a cross-site POST cannot act) and rate-limits it.
func (s *Server) asInstructor(next instructorFunc, cookie bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tok := bearer(r)
		if tok == "" && cookie {
			if c, err := r.Cookie(cookieName); err == nil {
				tok = c.Value
			}
		}
		if tok == "" {
			s.refuseToken(w, r, workshop.ErrNoToken, "send the instructor token as Authorization: Bearer TOKEN (kata serve prints it)")
			return
		}
		hash := hashToken(tok)
		id, ok := s.auth.instructor(hash)
		if !ok {
			var err error
			id, err = s.store.InstructorWorkshop(r.Context(), hash)
			switch {
			case errors.Is(err, store.ErrNotFound):
				if _, err := s.store.LearnerByToken(r.Context(), hash); err == nil {
					writeErr(w, http.StatusForbidden, workshop.ErrForbidden, "a learner's token cannot "+r.URL.Path+": only the instructor can")
					return
				}
				s.refuseToken(w, r, workshop.ErrBadToken, "unknown instructor token")
				return
			case err != nil:
				s.storeFailed(w, "checking the token", err)
				return
			}
			s.auth.putInstructor(hash, id)
		}
		if ok, wait := s.limits.allow("tok:"+hash, s.limits.l.PerToken, s.limits.l.PerTokenBurst); !ok {
			tooMany(w, wait, "requests with this token")
			return
		}
		h, err := s.hubByID(r.Context(), id)
		if err != nil {
			s.storeFailed(w, "loading the workshop", err)
			return
		}
		next(w, r, &Workshop{h: h})
	}
}

// checkName trims a learner's name and checks it: 1–MaxName printable characters.
func checkName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", errors.New("name: empty; give the name the board should show")
	}
	if !utf8.ValidString(name) {
		return "", errors.New("name: not UTF-8")
	}
	if n := utf8.RuneCountInString(name); n > workshop.MaxName {
		return "", fmt.Errorf("name: %d characters; the most is %d", n, workshop.MaxName)
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return "", fmt.Errorf("name: %q is not a printable character", r)
		}
	}
	return name, nil
}

func (s *Server) handleJoin(w http.ResponseWriter, r *http.Request) {
	if ok, wait := s.limits.allow("join:"+s.clientAddr(r), s.limits.l.Joins, s.limits.l.JoinsBurst); !ok {
		tooMany(w, wait, "joins from this address")
		return
	}
	var req workshop.JoinRequest
	if !decode(w, r, &req) {
		return
	}
	code := strings.ToUpper(strings.TrimSpace(req.Code))
	if !workshop.ValidCode(code) {
		writeErr(w, http.StatusBadRequest, workshop.ErrInvalid, fmt.Sprintf("code %q: a join code looks like ABCD-1234", req.Code))
		return
	}
	name, err := checkName(req.Name)
	if err != nil {
		writeErr(w, http.StatusBadRequest, workshop.ErrInvalid, err.Error())
		return
	}
	ws, err := s.store.WorkshopByCode(r.Context(), code)
	switch {
	case errors.Is(err, store.ErrNotFound):
		writeErr(w, http.StatusNotFound, workshop.ErrNotFound, "no workshop has the code "+code+"; check the address your instructor gave")
		return
	case err != nil:
		s.storeFailed(w, "finding the workshop", err)
		return
	case !ws.Closed.IsZero():
		writeErr(w, http.StatusGone, workshop.ErrClosed, "workshop "+code+" was closed; its code has expired")
		return
	}
	h, err := s.hub(r.Context(), ws)
	if err != nil {
		s.storeFailed(w, "loading the workshop", err)
		return
	}
	if h.state().Locked {
		writeErr(w, http.StatusForbidden, workshop.ErrLocked, "workshop "+code+" is locked: it takes no new learner; ask your instructor")
		return
	}
	addr := s.clientAddr(r)
	tok := newToken()
	l := store.Learner{ID: newID("L"), Workshop: ws.ID, Name: name, Joined: s.now()}
	ev, err := s.store.Join(r.Context(), l, hashToken(tok), store.JoinLimits{MaxLearners: s.opts.MaxLearners, Addr: addr, PerAddress: s.limits.l.SeatsPerAddress})
	switch {
	case errors.Is(err, store.ErrTooManyJoins):
		writeErr(w, http.StatusForbidden, workshop.ErrTooManyJoins, fmt.Sprintf("this address already joined %d learners to workshop %s, the most one address may; ask your instructor", s.limits.l.SeatsPerAddress, code))
		return
	case errors.Is(err, store.ErrClosed):
		writeErr(w, http.StatusGone, workshop.ErrClosed, "workshop "+code+" was closed; its code has expired")
		return
	case errors.Is(err, store.ErrFull):
		writeErr(w, http.StatusConflict, workshop.ErrFull, fmt.Sprintf("workshop %s already has %d learners", code, s.opts.MaxLearners))
		return
	case err != nil:
		s.storeFailed(w, "joining", err)
		return
	}
	h.offer([]workshop.Event{ev})
	s.log.Info("joined", "workshop", code, "learner", l.ID, "name", ev.Name, "addr", addr)
	writeJSON(w, http.StatusCreated, workshop.JoinResponse{Learner: l.ID, Name: ev.Name, Token: tok, Workshop: ws.Info(), State: h.state()})
}

func (s *Server) handleLeave(w http.ResponseWriter, r *http.Request, l store.Learner, h *hub, hash string) {
	ev, err := s.store.Leave(r.Context(), l, s.now())
	if err != nil {
		s.storeFailed(w, "leaving", err)
		return
	}
	h.offer([]workshop.Event{ev})
	s.auth.dropLearner(hash)
	s.log.Info("left", "workshop", h.ws.Code, "learner", l.ID)
	writeJSON(w, http.StatusOK, map[string]string{"status": "left"})
}

func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request, l store.Learner, h *hub, _ string) {
	var req workshop.EventsRequest
	if !decode(w, r, &req) {
		return
	}
	if len(req.Events) > workshop.MaxBatch {
		writeErr(w, http.StatusRequestEntityTooLarge, workshop.ErrTooLarge, fmt.Sprintf("%d events; send at most %d at a time", len(req.Events), workshop.MaxBatch))
		return
	}
	var (
		ok   []workshop.Event
		resp workshop.EventsResponse
	)
	for _, e := range req.Events {
		if e.Learner != "" && e.Learner != l.ID {
			writeErr(w, http.StatusForbidden, workshop.ErrForbidden, fmt.Sprintf("event %q names learner %s; a token writes only its own learner's events", e.ID, e.Learner))
			return
		}
		if err := e.Check(); err != nil {
			resp.Rejected = append(resp.Rejected, workshop.Rejected{ID: e.ID, Error: err.Error()})
			continue
		}
		if e.Kata != "" && !slices.Contains(h.ws.Katas, e.Kata) {
			resp.Rejected = append(resp.Rejected, workshop.Rejected{ID: e.ID, Error: fmt.Sprintf("kata %q is not one of this workshop's katas (%s)", e.Kata, strings.Join(h.ws.Katas, ", "))})
			continue
		}
		e.Seq, e.Received = 0, time.Time{}
		ok = append(ok, e)
	}
	room, err := s.limits.eventRoom(l.ID, func() (int, error) { return s.store.EventCount(r.Context(), h.ws.ID, l.ID) })
	if err != nil {
		s.storeFailed(w, "counting events", err)
		return
	}
	if len(ok) > room {
		for _, e := range ok[room:] {
			resp.Rejected = append(resp.Rejected, workshop.Rejected{ID: e.ID, Error: fmt.Sprintf("this learner has sent %d events, the most a workshop keeps of one learner; the board has your progress so far", s.limits.l.EventsPerLearner)})
		}
		ok = ok[:room]
	}
	if len(ok) > 0 {
		stored, dups, err := s.store.Append(r.Context(), h.ws.ID, l.ID, ok, s.now())
		switch {
		case errors.Is(err, store.ErrClosed):
			writeErr(w, http.StatusGone, workshop.ErrClosed, "the workshop was closed; kata leave ends your part in it")
			return
		case err != nil:
			s.storeFailed(w, "storing events", err)
			return
		}
		h.offer(stored)
		s.limits.stored(l.ID, len(stored))
		resp.Accepted, resp.Duplicates = len(stored), dups
	}
	writeJSON(w, http.StatusOK, resp)
}

// handleState answers the published state, for a learner's or an instructor's token.
func (s *Server) handleState(w http.ResponseWriter, r *http.Request) {
	if bearer(r) == "" {
		s.refuseToken(w, r, workshop.ErrNoToken, "send a token as Authorization: Bearer TOKEN")
		return
	}
	hash := hashToken(bearer(r))
	if _, err := s.store.InstructorWorkshop(r.Context(), hash); err == nil {
		s.asInstructor(func(w http.ResponseWriter, r *http.Request, c *Workshop) { writeJSON(w, http.StatusOK, c.State()) }, false)(w, r)
		return
	}
	s.asLearner(func(w http.ResponseWriter, r *http.Request, _ store.Learner, h *hub, _ string) {
		writeJSON(w, http.StatusOK, h.state())
	})(w, r)
}

// instructorErr answers an instructor action's error.
func (s *Server) instructorErr(w http.ResponseWriter, err error) {
	var br *errBadRequest
	switch {
	case errors.As(err, &br):
		status := http.StatusBadRequest
		if br.code == workshop.ErrNotFound {
			status = http.StatusNotFound
		}
		writeErr(w, status, br.code, br.Error())
	case errors.Is(err, errNoQuiz):
		writeErr(w, http.StatusConflict, workshop.ErrConflict, err.Error())
	case errors.Is(err, store.ErrClosed):
		writeErr(w, http.StatusGone, workshop.ErrClosed, "the workshop is closed")
	default:
		s.storeFailed(w, "storing the instructor's action", err)
	}
}

func (s *Server) handleLock(w http.ResponseWriter, r *http.Request, c *Workshop) {
	var req workshop.LockRequest
	if !decode(w, r, &req) {
		return
	}
	st, err := c.Lock(r.Context(), req.Locked)
	if err != nil {
		s.instructorErr(w, err)
		return
	}
	s.log.Info("locked", "workshop", c.Code(), "locked", req.Locked)
	writeJSON(w, http.StatusOK, st)
}

func (s *Server) handleSay(w http.ResponseWriter, r *http.Request, c *Workshop) {
	var req workshop.SayRequest
	if !decode(w, r, &req) {
		return
	}
	st, err := c.Say(r.Context(), req.Message)
	if err != nil {
		s.instructorErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func (s *Server) handleRemove(w http.ResponseWriter, r *http.Request, c *Workshop) {
	var req workshop.RemoveRequest
	if !decode(w, r, &req) {
		return
	}
	l, err := c.Remove(r.Context(), req.Name)
	if err != nil {
		s.instructorErr(w, err)
		return
	}
	s.log.Info("removed", "workshop", c.Code(), "learner", l.ID)
	writeJSON(w, http.StatusOK, workshop.RemoveResponse{Learner: l.ID, Name: l.Name})
}

func (s *Server) handlePacing(w http.ResponseWriter, r *http.Request, c *Workshop) {
	var req workshop.PacingRequest
	if !decode(w, r, &req) {
		return
	}
	st, err := c.Pace(r.Context(), req)
	if err != nil {
		s.instructorErr(w, err)
		return
	}
	s.log.Info("paced", "workshop", c.Code(), "kata", req.Kata, "layers", req.Layers, "steps", req.Steps)
	writeJSON(w, http.StatusOK, st)
}

func (s *Server) handleQuiz(w http.ResponseWriter, r *http.Request, c *Workshop) {
	var req workshop.QuizRequest
	if !decode(w, r, &req) {
		return
	}
	q, err := c.StartQuiz(r.Context(), req)
	if err != nil {
		s.instructorErr(w, err)
		return
	}
	s.log.Info("live quiz", "workshop", c.Code(), "kata", q.Kata, "items", q.Items)
	writeJSON(w, http.StatusOK, q)
}

func (s *Server) handleReveal(w http.ResponseWriter, r *http.Request, c *Workshop) {
	q, err := c.Reveal(r.Context())
	if err != nil {
		s.instructorErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, q)
}

func (s *Server) handleCloseQuiz(w http.ResponseWriter, r *http.Request, c *Workshop) {
	st, err := c.CloseQuiz(r.Context())
	if err != nil {
		s.instructorErr(w, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

func (s *Server) handleClose(w http.ResponseWriter, r *http.Request, c *Workshop) {
	st, err := c.Close(r.Context())
	if err != nil {
		s.instructorErr(w, err)
		return
	}
	s.log.Info("closed", "workshop", c.Code())
	writeJSON(w, http.StatusOK, st)
}

func (s *Server) handleBoard(w http.ResponseWriter, r *http.Request, c *Workshop) {
	writeJSON(w, http.StatusOK, c.View())
}

// requestContext ends when the request does or the server closes.
func (s *Server) requestContext(r *http.Request) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(r.Context())
	stop := context.AfterFunc(s.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}

package server

import (
	"embed"
	"errors"
	"html/template"
	"net/http"
	"strings"

	"github.com/kata-mcp/kata/katas/workshop"
	"github.com/kata-mcp/kata/katas/workshop/store"
)

// web holds the board page, its script and its style: no external assets, so the page works
// on a projector without internet and under a strict Content-Security-Policy.
//
//go:embed web
var web embed.FS

var pages = template.Must(template.ParseFS(web, "web/board.html"))

// csp allows only the page's own script, style and stream.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// asset serves one embedded file.
func asset(name, ctype string) http.HandlerFunc {
	b, err := web.ReadFile("web/" + name)
	if err != nil {
		panic(err)
	}
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Cache-Control", "no-cache")
		w.Write(b)
	}
}

// baseURL is the address the request came to, as the client sees it: the scheme (https
// behind TLS, or X-Forwarded-Proto with TrustProxy) and the Host header.
func (s *Server) baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if s.opts.TrustProxy {
		if p := r.Header.Get("X-Forwarded-Proto"); p == "https" || p == "http" {
			scheme = p
		}
	}
	return scheme + "://" + r.Host
}

// handleBoardPage serves the board: /board?token=T checks the instructor token, keeps it in
// an HttpOnly, SameSite=Strict cookie and redirects to /board, so the token leaves the
// address bar (and the projector); /board with the cookie serves the page.
func (s *Server) handleBoardPage(w http.ResponseWriter, r *http.Request) {
	if tok := r.URL.Query().Get("token"); tok != "" {
		if _, err := s.store.InstructorWorkshop(r.Context(), hashToken(tok)); err != nil {
			s.boardRefused(w, r, err)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: cookieName, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: s.opts.Secure || r.TLS != nil})
		http.Redirect(w, r, workshop.PathBoardPage, http.StatusSeeOther)
		return
	}
	c, err := r.Cookie(cookieName)
	if err != nil {
		s.boardRefused(w, r, store.ErrNotFound)
		return
	}
	id, err := s.store.InstructorWorkshop(r.Context(), hashToken(c.Value))
	if err != nil {
		s.boardRefused(w, r, err)
		return
	}
	ws, err := s.store.Workshop(r.Context(), id)
	if err != nil {
		s.boardRefused(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", csp)
	w.Header().Set("Cache-Control", "no-store")
	pages.ExecuteTemplate(w, "board.html", map[string]string{"Code": ws.Code, "JoinURL": s.baseURL(r) + "/" + ws.Code})
}

// boardRefused answers a board page request without a valid token: 401 (or 503 when the
// store failed) with a page saying what to open instead.
func (s *Server) boardRefused(w http.ResponseWriter, r *http.Request, err error) {
	status := http.StatusUnauthorized
	if !errors.Is(err, store.ErrNotFound) {
		status = http.StatusServiceUnavailable
		s.log.Error("board page", "err", err)
	}
	if ok, wait := s.limits.allow("bad:"+s.clientAddr(r), s.limits.l.BadTokens, s.limits.l.BadTokensBurst); !ok {
		tooMany(w, wait, "requests without a valid token")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write([]byte("<!doctype html><title>kata board</title><p>Open the board address <code>kata serve</code> printed (it ends in <code>/board?token=…</code>).</p>\n"))
}

// handleJoinPage answers a browser that opens the join address: how to join from a terminal.
func (s *Server) handleJoinPage(w http.ResponseWriter, r *http.Request) {
	code := strings.ToUpper(strings.Trim(r.URL.Path, "/"))
	if r.URL.Path == "/" || !workshop.ValidCode(code) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte("kata serve: join a workshop with `kata join http://HOST:PORT/CODE --name YOUR_NAME`; the board is at /board.\n"))
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte("Join this workshop from a terminal:\n\n  kata join " + s.baseURL(r) + "/" + code + " --name YOUR_NAME\n\nor press j in kata's catalog and paste this address.\n"))
}

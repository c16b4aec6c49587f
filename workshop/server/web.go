package server

import (
	"embed"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"strings"

	"golang.org/x/text/language"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/internal/locale"
	"github.com/kata-mcp/kata/workshop"
	"github.com/kata-mcp/kata/workshop/store"
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
	loc := s.opts.Loc
	pages.ExecuteTemplate(w, "board.html", pageData{Code: ws.Code, JoinURL: s.baseURL(r) + "/" + ws.Code, YourName: loc.T("out.your_name"), Lang: loc.Lang(),
		Title: loc.T("workshop.web.title", "Code", ws.Code), Heading: loc.T("workshop.web.heading"), Join: loc.T("workshop.web.join"),
		Connecting: loc.T("workshop.web.connecting"), Learners: loc.N("count.learner", 0), Open: loc.T("workshop.web.open"),
		LearnersLabel: loc.T("workshop.web.learners"), NoLearner: loc.T("board.no_learner"), Quiz: loc.T("workshop.web.live_quiz"),
		Missed: loc.T("board.missed"), Rules: loc.T("workshop.web.rules"), Items: loc.T("workshop.web.items"),
		Attention: loc.T("workshop.web.attention"), Words: pageWords(loc)})
}

// pageData fills board.html: the workshop, and the page's words in the instructor's language.
type pageData struct {
	Code, JoinURL, YourName, Lang                string
	Title, Heading, Join, Connecting, Learners   string
	Open, LearnersLabel, NoLearner, Quiz, Missed string
	Rules, Items, Attention                      string
	// Words is the JSON board.js words the live parts with (pageWords).
	Words string
}

// pageWords is the JSON object of the words board.js puts on the page, in loc's language: a
// message with {name} where the script puts a value, and for a counted one its forms by CLDR
// plural category ("one", "few", "many", "other"), {n} standing for the number; the script
// picks a form with Intl.PluralRules of the page's lang.
func pageWords(loc *i18n.Localizer) string {
	forms := func(id string) map[string]string {
		m := map[string]string{"one": loc.N(id, 1, "Count", "{n}"), "other": loc.N(id, 2, "Count", "{n}")}
		if loc.Lang() == "ru" {
			m["few"], m["many"] = loc.N(id, 2, "Count", "{n}"), loc.N(id, 5, "Count", "{n}")
		}
		return m
	}
	words := map[string]any{
		"pacing": loc.T("workshop.web.pacing", "Layers", "{layers}", "AllLayers", "{all_layers}", "Layer", "{layer}",
			"Steps", "{steps}", "AllSteps", "{all_steps}"),
		"everything": loc.T("workshop.web.everything"),
		"learner":    loc.T("board.col_learner"), "layer": loc.T("board.col_layer"), "quiz": loc.T("board.col_quiz"), "grade": loc.T("board.col_grade"),
		"live_quiz": loc.T("workshop.web.live_quiz"), "revealed": loc.T("workshop.board.quiz_revealed"), "answering": loc.T("workshop.web.answering"),
		"none_yet": loc.T("workshop.web.none_yet"), "nobody": loc.T("board.nobody"),
		"live": loc.T("workshop.web.live"), "reconnecting": loc.T("workshop.web.reconnecting"),
		"learners": forms("count.learner"), "answers": forms("count.answer"),
		"waiting": loc.T("workshop.web.waiting", "Names", "{names}"), "all_answered": loc.T("workshop.web.all_answered"),
		"elapsed": loc.T("workshop.web.elapsed", "Time", "{time}"), "no_join": loc.T("workshop.web.no_join"),
	}
	b, _ := json.Marshal(words)
	return string(b)
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
	loc := s.readerLoc(r)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	// The message is escaped; the two private-use characters standing for its fields are not.
	text := template.HTMLEscapeString(loc.T("workshop.web.refused", "Command", "\ue000", "Path", "\ue001"))
	text = strings.NewReplacer("\ue000", "<code>kata serve</code>", "\ue001", "<code>/board?token=…</code>").Replace(text)
	w.Write([]byte("<!doctype html><html lang=\"" + loc.Lang() + "\"><title>kata board</title><p>" + text + "</p>\n"))
}

// readerLoc is the localizer of the language the request's reader prefers: the first of its
// Accept-Language (RFC 9110 §12.5.4) that kata has, else the server's (Options.Loc).
func (s *Server) readerLoc(r *http.Request) *i18n.Localizer {
	tags, _, err := language.ParseAcceptLanguage(r.Header.Get("Accept-Language"))
	if err == nil {
		for _, t := range tags {
			base, _ := t.Base()
			if code, ok := locale.Parse(base.String()); ok {
				return i18n.New(code)
			}
		}
	}
	return s.opts.Loc
}

// handleJoinPage answers a browser that opens the join address: how to join from a terminal.
func (s *Server) handleJoinPage(w http.ResponseWriter, r *http.Request) {
	code := strings.ToUpper(strings.Trim(r.URL.Path, "/"))
	loc := s.readerLoc(r)
	if r.URL.Path == "/" || !workshop.ValidCode(code) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(loc.T("workshop.web.how_to_join") + "\n"))
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	// a closed or locked workshop advertises no join line
	if ws, err := s.store.WorkshopByCode(r.Context(), code); err == nil {
		if !ws.Closed.IsZero() {
			w.WriteHeader(http.StatusGone)
			w.Write([]byte(loc.T("workshop.web.join_closed", "Code", code) + "\n"))
			return
		}
		if h, err := s.hub(r.Context(), ws); err == nil && h.state().Locked {
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte(loc.T("workshop.web.join_locked", "Code", code) + "\n"))
			return
		}
	}
	w.Write([]byte(loc.T("workshop.web.join_page", "Command", "kata join "+s.baseURL(r)+"/"+code+" --name "+loc.T("out.your_name")) + "\n"))
}

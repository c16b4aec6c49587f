// Package common is what every page and component of the interface shares: the Common value
// (size, library, styles, keymap, clock and progress store), the Page interface, the messages
// pages send the root, and the text formatters.
package common

import (
	"slices"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/ui/keymap"
	"github.com/kata-mcp/kata/ui/markdown"
	"github.com/kata-mcp/kata/workshop/learner"
)

// Common is what every page holds: its own size, and the interface's library, look, keys, clock
// and store. Copies share everything but the size: a page keeps its copy and sets the size in
// SetSize.
type Common struct {
	// Width and Height are the page's space in cells, above the help line.
	Width, Height int
	Lib           *katas.Library
	Styles        *Styles
	Keys          *keymap.KeyMap
	// MDStyle is the glamour style Markdown is rendered in ("dark", "light", "notty", "ascii").
	MDStyle string
	// Store keeps the learner's progress; nil means none: everything works, nothing is saved.
	Store Store
	// Workshop is the link to an instructor's workshop; nil means none (self-study only).
	Workshop Workshop
	// Loc gives the interface's text in the user's language; nil means English.
	Loc *i18n.Localizer
	sh  *shared
}

// shared is the part of Common every copy shares by pointer.
type shared struct {
	now    func() time.Time
	tick   func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd
	seed   int64
	lang   string // the language asked for (Config.Language)
	wsDir  func(id string) string
	gen    int // the last generation handed out
	writer writer
	ws     workshopState
}

// Config configures New. The zero value is usable.
type Config struct {
	// Style is the glamour style; empty means "dark". With NoColor it is "notty" (or "ascii"
	// if asked for) and the styles drop colour.
	Style   string
	NoColor bool
	Store   Store
	// Now is the clock; nil means time.Now. Tick schedules a clock message after d; nil means
	// tea.Tick.
	Now  func() time.Time
	Tick func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd
	// Seed draws exams, drills and option orders; 0 means a new seed from the clock each time.
	Seed int64
	// Language is the workspace language to offer a kata whose learner chose none; empty means
	// python (see Language).
	Language string
	// Workshop is the link to an instructor's workshop (nil: none).
	Workshop Workshop
	// Locale is the language of the interface's text, a code of locale.Supported; empty means
	// English.
	Locale string
	// Workspace maps a kata id to the app's workspace folder for it (the one the task screen
	// creates and grades); nil means none is known.
	Workspace func(id string) string
}

// New returns the Common of an interface over lib; it does no I/O.
func New(lib *katas.Library, cfg Config) Common {
	c := Common{Lib: lib, Store: cfg.Store, Workshop: cfg.Workshop, Loc: i18n.New(cfg.Locale), sh: &shared{now: cfg.Now, tick: cfg.Tick, seed: cfg.Seed, lang: cfg.Language, wsDir: cfg.Workspace}}
	c.Keys = keymap.New(c.Loc)
	if c.sh.now == nil {
		c.sh.now = time.Now
	}
	if c.sh.tick == nil {
		c.sh.tick = tea.Tick
	}
	switch {
	case cfg.NoColor:
		c.MDStyle = markdown.StyleNoTTY
		if cfg.Style == markdown.StyleASCII {
			c.MDStyle = cfg.Style
		}
		c.Styles = NewStyles(true, true)
	case cfg.Style != "":
		c.MDStyle = cfg.Style
		c.Styles = NewStyles(cfg.Style != markdown.StyleLight, false)
	default:
		c.MDStyle = markdown.StyleFor(false, true)
		c.Styles = NewStyles(true, false)
	}
	return c
}

// Workspace is the app's workspace folder for kata id ("" when none is known): its grades are
// the ones the catalog and the task screen call the last grade.
func (c Common) Workspace(id string) string {
	if c.sh.wsDir == nil {
		return ""
	}
	return c.sh.wsDir(id)
}

// SetSize records the page's space.
func (c *Common) SetSize(width, height int) { c.Width, c.Height = width, height }

// Now reads the clock.
func (c Common) Now() time.Time { return c.sh.now() }

// Tick schedules fn's message after d.
func (c Common) Tick(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd { return c.sh.tick(d, fn) }

// Seed returns the seed of a new draw.
func (c Common) Seed() int64 {
	if c.sh.seed != 0 {
		return c.sh.seed
	}
	return c.Now().UnixNano()
}

// Language is the workspace language of a packet with template languages langs: the one
// chosen, or, when none was (chosen "") or the packet has no template for it, the configured
// language, else python, else the packet's first, each when the packet has it.
func (c Common) Language(langs []string, chosen string) string {
	for _, l := range []string{chosen, c.sh.lang, "python"} {
		if l != "" && slices.Contains(langs, l) {
			return l
		}
	}
	if len(langs) > 0 {
		return langs[0]
	}
	return "python"
}

// NextGen returns a new generation number: a mock exam or review session's messages carry it,
// so a message from an earlier session (a late tick) is told apart even across new page models.
func (c Common) NextGen() int {
	c.sh.gen++
	return c.sh.gen
}

// Packets returns the packets named by ids, in that order, each once (unknown and repeated ids
// skipped, so `kata exam k k` does not draw k's items twice); no ids means every packet.
func (c Common) Packets(ids []string) []*katas.Packet {
	if len(ids) == 0 {
		return c.Lib.Packets()
	}
	var ps []*katas.Packet
	seen := map[string]bool{}
	for _, id := range ids {
		if p, ok := c.Lib.Get(id); ok && !seen[p.ID] {
			seen[p.ID] = true
			ps = append(ps, p)
		}
	}
	return ps
}

// Page is one screen of the interface. Update does no I/O (it returns commands); SetSize is
// called when the page becomes active and on resize, with the space above the help line, and
// may return a command to re-render for the new width.
type Page interface {
	help.KeyMap
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(width, height int) tea.Cmd
}

// Backer is a page that handles Back itself while it has something to close; ok false lets the
// root go back.
type Backer interface {
	Back() (cmd tea.Cmd, ok bool)
}

// Activator is a page told when it comes into view.
type Activator interface {
	Activate()
}

// Typer is a page that may be taking typed text (a search or a filter): while Typing reports
// true the root gives it every key but ctrl+c and esc, so q and ? are text, not commands.
type Typer interface {
	Typing() bool
}

// Noter is a page with a note for the help overlay: how something on it works (e.g. when a
// layer counts as read).
type Noter interface {
	HelpNote() string
}

// Screen names a screen.
type Screen int

// The screens: the catalog, a packet's screens, and the mock exam and review across packets.
const (
	CatalogScreen Screen = iota
	KataScreen
	QuizScreen
	TrapsScreen
	TaskScreen
	DrillScreen
	MockExamScreen
	ReviewScreen
	// JoinScreen joins or leaves a workshop; LiveQuizScreen is the instructor's live quiz.
	JoinScreen
	LiveQuizScreen
)

// String names a screen for the help overlay.
func (s Screen) String() string {
	return [...]string{"catalog", "kata layers", "quiz", "trap tables", "task", "trap drill", "mock exam", "review", "workshop", "live quiz"}[s]
}

// Messages pages send the root.
type (
	// OpenPacketMsg asks for a packet's kata screen.
	OpenPacketMsg struct{ ID string }
	// ShowMsg asks for another screen of the open packet.
	ShowMsg struct{ Screen Screen }
	// StartMockExamMsg asks for the mock exam (resumed if one is under way).
	StartMockExamMsg struct{}
	// StartReviewMsg asks for a new review session.
	StartReviewMsg struct{}
)

// Send returns a command answering msg.
func Send(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

// Show returns the command that asks for screen s of the open packet.
func Show(s Screen) tea.Cmd { return Send(ShowMsg{s}) }

// T is message id's text in the interface's language (i18n.Localizer.T): kv are the template
// fields as name, value pairs.
func (c Common) T(id string, kv ...any) string { return c.Loc.T(id, kv...) }

// N is message id's text in the plural form of count (i18n.Localizer.N).
func (c Common) N(id string, count int, kv ...any) string { return c.Loc.N(id, count, kv...) }

// LayerName is a packet layer's name (katas.LayerNames) as the interface shows it, in its
// language; a name it does not know stays as it is.
func (c Common) LayerName(layer string) string {
	switch layer {
	case "knowledge":
		return c.T("layer.knowledge")
	case "prompts":
		return c.T("layer.prompts")
	case "examples":
		return c.T("layer.examples")
	case "agents":
		return c.T("layer.agents")
	case "templates":
		return c.T("layer.templates")
	}
	return layer
}

// LayerNames is LayerName of each of layers.
func (c Common) LayerNames(layers []string) []string {
	out := make([]string, len(layers))
	for i, l := range layers {
		out[i] = c.LayerName(l)
	}
	return out
}

// ConnName is a workshop connection state as the interface shows it.
func (c Common) ConnName(conn learner.Conn) string {
	switch conn {
	case learner.Connecting:
		return c.T("conn.connecting")
	case learner.Live:
		return c.T("conn.live")
	case learner.Offline:
		return c.T("conn.offline")
	case learner.Refused:
		return c.T("conn.refused")
	case learner.Closed:
		return c.T("conn.closed")
	}
	return string(conn)
}

// ScreenName names screen s for the help overlay in the interface's language.
func (c Common) ScreenName(s Screen) string {
	switch s {
	case CatalogScreen:
		return c.T("screen.catalog")
	case KataScreen:
		return c.T("screen.kata")
	case QuizScreen:
		return c.T("screen.quiz")
	case TrapsScreen:
		return c.T("screen.traps")
	case TaskScreen:
		return c.T("screen.task")
	case DrillScreen:
		return c.T("screen.drill")
	case MockExamScreen:
		return c.T("screen.mock")
	case ReviewScreen:
		return c.T("screen.review")
	case JoinScreen:
		return c.T("screen.join")
	case LiveQuizScreen:
		return c.T("screen.live")
	}
	return s.String()
}

// Overflower is a page whose content may not fit its height: while Overflows says so, the root
// keeps the page's scroll keys in the key bar (on two lines if need be) rather than dropping
// them to fit one line.
type Overflower interface {
	Overflows() bool
}

// SourceName is where a packet comes from as the reader reads it: "embedded" (the packets
// built into kata) in loc's words, a folder as it is.
func SourceName(loc *i18n.Localizer, source string) string {
	if source == "embedded" {
		return loc.T("common.embedded")
	}
	return source
}

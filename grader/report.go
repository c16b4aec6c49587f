package grader

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
)

// Status values of a report and of each test, as in the Exercism test-runner interface
// (results.json version 3). The progress store keeps the same words (progress.GradePass, …).
const (
	StatusPass  = "pass"
	StatusFail  = "fail"
	StatusError = "error"
)

// Report is the outcome of one grading run. Its JSON field names follow Exercism's
// results.json v3 (version, status, message, tests) plus kata, seed and duration_ms
// (docs/grading.md#json-report).
type Report struct {
	Version int    `json:"version"`
	Status  string `json:"status"`
	// Message explains an error status (the submission could not be graded), or says the run
	// was interrupted.
	Message string `json:"message,omitempty"`
	// Why is Message as a catalog message, for Localize; nil when Message is not one (or the
	// report was read back from JSON). Not serialised.
	Why   *i18n.Msg    `json:"-"`
	Tests []TestResult `json:"tests"`
	Kata  string       `json:"kata"`
	// Seed repeats the run's random draws with `kata grade --seed N`.
	Seed       int64 `json:"seed"`
	DurationMS int64 `json:"duration_ms"`
	// Points and MaxPoints score the run (docs/packets.md#points): each passed test earns its
	// share of its task step's points (not part of the Exercism schema). A report of a kata
	// that is not loaded has 0 of 0.
	Points    float64 `json:"points"`
	MaxPoints float64 `json:"max_points"`
	// Workspace is the graded folder (not part of the Exercism schema).
	Workspace string `json:"workspace,omitempty"`
	// Isolation is how learner processes were confined: "bwrap" or "none"
	// (docs/grading.md#sandbox); empty when no learner process was to be started.
	Isolation string `json:"isolation,omitempty"`
	// Timings says where the run's wall time went, for benchmarks and -v; not in results.json.
	Timings Timings `json:"-"`
}

// Timings are the wall times of a run's parts. The server and client phases run at the same
// time, so a run lasts about Prepare + the longer of ServerPhase and ClientPhase.
type Timings struct {
	// Prepare reads the workspace, runs the build (kata.json "build") and starts the Orders API.
	Prepare time.Duration
	// ServerStart is the launch of the first server instance, up to its answer to initialize.
	ServerStart time.Duration
	// ServerPhase runs every server instance's handshake, tools/list and every fixture.
	ServerPhase time.Duration
	// ClientPhase runs every client scenario.
	ClientPhase time.Duration
	// Processes counts the learner processes the run started: the build, every server
	// instance and every client, restarts included (not a time: what a grade's CPU goes to).
	Processes int
}

// TestResult is one graded test: a fixture, or a run-wide rule such as "stdout carries only
// JSON-RPC".
type TestResult struct {
	// ID is a stable id: the fixture's id, or "tools-list" / "stdout-protocol-only" for the
	// run-wide checks (our addition to the Exercism fields).
	ID     string `json:"id"`
	Name   string `json:"name"`
	Status string `json:"status"`
	// Message says, on failure, the rule, the call sent, what came back and what was expected.
	Message string `json:"message,omitempty"`
	// Lines are Message's lines as catalog messages, for reading the report in another
	// language (Localize); not serialised, so a report read back from JSON has none.
	Lines []i18n.Msg `json:"-"`
	// Note says something worth knowing about a test that passed, e.g. that an unknown tool was
	// answered the way SDKs do rather than the way the spec prefers (our addition).
	Note string `json:"note,omitempty"`
	// NoteLines are Note's lines as catalog messages (see Lines); not serialised.
	NoteLines []i18n.Msg `json:"-"`
	// Output is the tail of the learner process's stderr during the test, capped.
	Output string `json:"output,omitempty"`
	// OutputOf names whose stderr Output is: "server" or "client" ("" for none); not
	// serialised.
	OutputOf string `json:"-"`
	// Step is the task step (task.md "## N.") the test grades; results.json names it task_id,
	// as Exercism's v3 does.
	Step int `json:"task_id"`
	// Rule is the contract rule the test checks, in words.
	Rule string `json:"rule,omitempty"`
	// FailedRules are the ids of the rules the test found broken (rules.go; explained in
	// docs/grading.md#rule-<id>), in the order found; empty when it passed.
	FailedRules []RuleID `json:"failed_rules,omitempty"`
	// Duration of the test; not serialised.
	Duration time.Duration `json:"-"`
}

// Counts returns how many tests passed, failed and errored.
func (r *Report) Counts() (pass, fail, errored int) {
	for _, t := range r.Tests {
		switch t.Status {
		case StatusPass:
			pass++
		case StatusFail:
			fail++
		default:
			errored++
		}
	}
	return
}

// ExitCode is the process exit code for the report (docs/grading.md#exit-codes): 0 when every test
// passed, 1 when some test failed, 2 when the submission could not be graded.
func (r *Report) ExitCode() int {
	switch r.Status {
	case StatusPass:
		return 0
	case StatusFail:
		return 1
	default:
		return 2
	}
}

// EventKind says what a progress Event reports.
type EventKind string

// Event kinds.
const (
	EventTestStarted  EventKind = "start" // a test began (Test set)
	EventTestFinished EventKind = "done"  // a test finished (Test and Result set)
	EventInfo         EventKind = "info"  // a message such as "building" (Message set)
)

// Event is a progress notice sent while grading: a test started or finished.
type Event struct {
	// Kind says what the event reports.
	Kind EventKind
	// Test is the name of the test started or finished, in English; TestID its id (for
	// LocalizeTest).
	Test   string
	TestID string
	Result *TestResult
	// Done and Total count finished tests and all tests of the run.
	Done, Total int
	// Message is an info event's text in English; Says is it as a catalog message, for a
	// screen in the reader's language.
	Message string
	Says    i18n.Msg
}

// announceStart tells the progress callback a test began.
func (r *run) announceStart(id, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.opts.OnEvent != nil {
		r.opts.OnEvent(Event{Kind: EventTestStarted, Test: name, TestID: id, Done: r.done, Total: r.total})
	}
}

// info tells the progress callback what the run is doing (msg, a catalog message).
func (r *run) info(msg i18n.Msg) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.opts.OnEvent != nil {
		r.opts.OnEvent(Event{Kind: EventInfo, Message: msg.English(), Says: msg, Done: r.done, Total: r.total})
	}
}

// withVerdict sets a test's status from its problems (none is a pass) and its message: the
// problems, then detail (the call and what came back) when it is not empty.
func withVerdict(t TestResult, probs []i18n.Msg, detail i18n.Msg) TestResult {
	if t.Status == "" {
		t.Status = StatusPass
		if len(probs) > 0 {
			t.Status = StatusFail
		}
	}
	if len(probs) > 0 {
		lines := probs
		if !detail.IsZero() {
			lines = append(slices.Clip(lines), detail)
		}
		t.setMessage(lines...)
	}
	return t
}

// setMessage sets the test's Message to the lines in English, and Lines to them.
func (t *TestResult) setMessage(lines ...i18n.Msg) {
	t.Lines = lines
	t.Message = englishLines(lines)
}

// setNote sets the test's Note to the lines in English, and NoteLines to them.
func (t *TestResult) setNote(lines ...i18n.Msg) {
	t.NoteLines = lines
	t.Note = englishLines(lines)
}

// englishLines is messages in English, one per line.
func englishLines(lines []i18n.Msg) string {
	out := make([]string, len(lines))
	for i, m := range lines {
		out[i] = m.English()
	}
	return strings.Join(out, "\n")
}

// recordVerdict records a test with the verdict of its problems and the rules they broke.
func (r *run) recordVerdict(t TestResult, probs problems, detail i18n.Msg) {
	t.FailedRules = probs.rules()
	r.record(withVerdict(t, probs.messages(), detail))
}

// announceDone sanitises a finished test (Sanitize) and reports it to the progress callback
// without recording it; it returns the sanitised test.
func (r *run) announceDone(t TestResult) TestResult {
	t = sanitizeTest(t)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done++
	if r.opts.OnEvent != nil {
		tc := t
		r.opts.OnEvent(Event{Kind: EventTestFinished, Test: t.Name, TestID: t.ID, Result: &tc, Done: r.done, Total: r.total})
	}
	return t
}

// record announces a test and appends it to the report.
func (r *run) record(t TestResult) {
	t = r.announceDone(t)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rep.Tests = append(r.rep.Tests, t)
}

// TestOrder lists the ids of the tests a run of p reports, in the run's fixed order: config
// rules, tools/list, the server fixtures, the stdout check, the client scenarios, each in file
// order. A report's tests are in this order (docs/grading.md#json-report); a screen showing
// results as they come sorts them by it, so a finished test never moves another.
func TestOrder(p *katas.Packet) []string {
	var ids []string
	if p.ConfigRules != nil {
		for _, c := range p.ConfigRules.Rules {
			ids = append(ids, c.ID)
		}
	}
	ids = append(ids, "tools-list")
	if set := p.Fixtures["server"]; set != nil {
		for _, f := range set.Fixtures {
			ids = append(ids, f.ID)
		}
	}
	ids = append(ids, "stdout-protocol-only")
	if p.Scenarios != nil {
		for _, s := range p.Scenarios.Scenarios {
			ids = append(ids, s.ID)
		}
	}
	return ids
}

// SortTests sorts tests stably by order (TestOrder), tests not in it last.
func SortTests(tests []TestResult, order []string) {
	pos := func(id string) int {
		if i := slices.Index(order, id); i >= 0 {
			return i
		}
		return len(order)
	}
	slices.SortStableFunc(tests, func(a, b TestResult) int { return pos(a.ID) - pos(b.ID) })
}

// sortTests puts the report's tests in the run's fixed order (TestOrder), whatever order the
// concurrent phases finished them in.
func (r *run) sortTests() {
	order := TestOrder(r.packet)
	r.mu.Lock()
	defer r.mu.Unlock()
	SortTests(r.rep.Tests, order)
}

// report ends the run: the status from the tests (pass when all passed) and the duration.
func (r *run) report() *Report {
	r.rep.Status = StatusPass
	for _, t := range r.rep.Tests {
		if t.Status != StatusPass {
			r.rep.Status = StatusFail
		}
	}
	r.rep.DurationMS = time.Since(r.start).Milliseconds()
	return r.rep
}

// errorReport ends a run that could not grade: status error, the sanitised reason, no tests.
func (r *run) errorReport(err error) *Report {
	r.rep.Status = StatusError
	r.rep.Message = Sanitize(err.Error())
	if i18n.IsMsg(err) {
		why := i18n.ErrMsg(err)
		r.rep.Why = &why
	}
	r.rep.Tests = []TestResult{}
	r.rep.DurationMS = time.Since(r.start).Milliseconds()
	return r.rep
}

// StepTitles maps task step numbers to titles for a report's kata, for grouping output.
func StepTitles(p *katas.Packet) map[int]string {
	m := map[int]string{}
	for _, s := range p.Task.Steps {
		m[s.Number] = s.Title
	}
	return m
}

// sortedSteps returns the task ids present in tests, ascending.
func sortedSteps(tests []TestResult) []int {
	seen := map[int]bool{}
	var ids []int
	for _, t := range tests {
		if !seen[t.Step] {
			seen[t.Step] = true
			ids = append(ids, t.Step)
		}
	}
	sort.Ints(ids)
	return ids
}

package class

import (
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/katas"
)

// Report is the class report of a batch: each learner's tests and points per task step, the
// rules the class fails most, and the learners who cannot be graded. Its JSON is what
// `kata class grade --json` writes.
type Report struct {
	Seed int64 `json:"seed"`
	// Katas are the katas the learners' workspaces name, each with its task steps.
	Katas    []KataSteps  `json:"katas"`
	Learners []LearnerRow `json:"learners"`
	// Rules are the rules at least one learner's tests broke, the most learners first.
	Rules []RuleCount `json:"rules"`
	// Graded counts the learners graded by this run, Reused those taken from the results store,
	// CannotGrade those whose report has status "error".
	Graded      int `json:"graded"`
	Reused      int `json:"reused"`
	CannotGrade int `json:"cannot_grade"`
	// Gradable counts the learners who could be graded (every learner but CannotGrade).
	Gradable   int   `json:"gradable"`
	Jobs       int   `json:"jobs"`
	DurationMS int64 `json:"duration_ms"`
	Anonymized bool  `json:"anonymized"`
	// Rostered says a roster gave the learners student ids (LearnerRow.StudentID).
	Rostered  bool      `json:"rostered,omitempty"`
	Generated time.Time `json:"generated"`
}

// KataSteps is one kata of the class and its graded task steps, as report columns.
type KataSteps struct {
	Kata      string     `json:"kata"`
	Title     string     `json:"title"`
	Steps     []StepInfo `json:"steps"`
	MaxPoints float64    `json:"max_points"`
}

// StepInfo is a graded task step: its number, title, what it is worth and how many tests
// grade it.
type StepInfo struct {
	Number    int     `json:"step"`
	Title     string  `json:"title"`
	MaxPoints float64 `json:"max_points"`
}

// LearnerRow is one learner of the class report.
type LearnerRow struct {
	// Name is the learner's folder name, or a pseudonym when the report is anonymized.
	Name string `json:"name"`
	// Dir is the learner's folder; empty when the report is anonymized.
	Dir string `json:"dir,omitempty"`
	// StudentID and Email are the roster's (BuildOptions.Roster) for the learner; empty when
	// there is no roster or it does not name the learner.
	StudentID string `json:"student_id,omitempty"`
	Email     string `json:"email,omitempty"`
	// Kata is the learner's kata; for a folder that is no workspace, the class's kata when the
	// class has one (and the learner 0 of its points), else empty.
	Kata string `json:"kata,omitempty"`
	// Status is the grader's: pass, fail, or error (the learner cannot be graded).
	Status string `json:"status"`
	// Message says why a learner cannot be graded.
	Message   string  `json:"message,omitempty"`
	Passed    int     `json:"passed"`
	Tests     int     `json:"tests"`
	Points    float64 `json:"points"`
	MaxPoints float64 `json:"max_points"`
	// Percent is Points of MaxPoints in percent, rounded once to a whole number (Percent):
	// every report and the progress line show this one figure.
	Percent float64            `json:"percent"`
	Steps   []grader.StepScore `json:"steps,omitempty"`
	// FailedRules are the rules the learner's tests broke, in the order first found; the tests
	// of a part the learner never wrote (NotWritten) break none.
	FailedRules []grader.RuleID `json:"failed_rules,omitempty"`
	// NotWritten names the parts the learner never wrote ("client": the template's client,
	// which says it is not written yet), whose failing tests are no rule failures; NotWrittenTests
	// counts those tests.
	NotWritten      []string `json:"not_written,omitempty"`
	NotWrittenTests int      `json:"not_written_tests,omitempty"`
	// Reused says the result came from the results store (the folder did not change).
	Reused     bool  `json:"reused"`
	DurationMS int64 `json:"duration_ms"`
	// report is the learner's grader report, for the per-learner files.
	report *grader.Report
	// why is Message as a catalog message (nil when it is none, as in a result read back from
	// the results store); scrub, when set, is what anonymizing does to the learner's text
	// (Scrubber).
	why   *i18n.Msg
	scrub func(string) string
}

// CannotGrade reports whether the learner's submission could not be graded.
func (l LearnerRow) CannotGrade() bool { return l.Status == grader.StatusError }

// MessageIn is Message in loc's language when the grader gave it as a catalog message, else
// Message itself (English).
func (l LearnerRow) MessageIn(loc *i18n.Localizer) string {
	if l.why == nil || loc.Lang() == katas.English {
		return l.Message
	}
	s := grader.Sanitize(loc.Say(*l.why))
	if l.scrub != nil {
		s = l.scrub(s)
	}
	return s
}

// RuleCount is one rule the class broke: how many learners broke it, in how many tests, and
// one example of what a failing test said.
type RuleCount struct {
	Rule      grader.RuleID `json:"rule"`
	Statement string        `json:"statement"`
	// Doc is where docs/grading.md explains the rule.
	Doc string `json:"doc"`
	// Learners counts the learners with a test that broke the rule; Names lists them.
	Learners int      `json:"learners"`
	Names    []string `json:"names"`
	Tests    int      `json:"tests"`
	// Example is the first line of one failing test's message, ExampleTest that test's name
	// and ExampleLearner whose it was.
	Example        string `json:"example"`
	ExampleTest    string `json:"example_test"`
	ExampleLearner string `json:"example_learner"`
	// example is the failing test the example is from, and kata its kata, for Localize.
	example grader.TestResult
	kata    string
}

// exampleCap bounds an example message.
const exampleCap = 300

// BuildOptions tune the class report.
type BuildOptions struct {
	// PseudonymKey, when set, anonymizes the report: learner names become Pseudonym(key, name)
	// and folder paths are left out.
	PseudonymKey []byte
	// Roster, when set, gives each learner it names a student id and an email. An anonymized
	// report leaves them out.
	Roster    *Roster
	Generated time.Time
}

// BuildReport makes the class report of a batch, scoring each learner against its kata's
// packet in lib (docs/packets.md#points).
func BuildReport(lib *katas.Library, b *Batch, o BuildOptions) *Report {
	rep := &Report{Seed: b.Seed, Graded: b.Graded, Reused: b.Reused, Jobs: b.Jobs, DurationMS: b.Duration.Milliseconds(),
		Anonymized: o.PseudonymKey != nil, Generated: o.Generated}
	rep.Rostered = o.Roster != nil && !rep.Anonymized
	kataIdx := map[string]int{}
	rules := map[grader.RuleID]*RuleCount{}
	statements := map[grader.RuleID]string{}
	for _, res := range b.Results {
		r := res.Report
		var scrub func(string) string
		if rep.Anonymized {
			scrub = Scrubber(res.Learner, Pseudonym(o.PseudonymKey, res.Name))
			r = scrubReport(r, scrub)
		}
		row := LearnerRow{Name: res.Name, Dir: res.Dir, Kata: r.Kata, Status: r.Status, Reused: res.Reused,
			DurationMS: res.Duration.Milliseconds(), report: r, scrub: scrub}
		if rep.Anonymized {
			row.Name, row.Dir = Pseudonym(o.PseudonymKey, res.Name), ""
		} else if e, ok := o.Roster.Lookup(res.Name); ok {
			row.StudentID, row.Email = e.StudentID, e.Email
		}
		p, known := lib.Get(r.Kata)
		if known {
			if _, seen := kataIdx[p.ID]; !seen {
				kataIdx[p.ID] = len(rep.Katas)
				rep.Katas = append(rep.Katas, kataSteps(p))
				for _, rl := range grader.RulesFor(p) {
					statements[rl.ID] = rl.Statement
				}
			}
			s := grader.ScoreOf(p, r)
			row.Points, row.MaxPoints, row.Percent, row.Steps = s.Points, s.Max, Percent(s.Points, s.Max), s.Steps
		}
		if row.CannotGrade() {
			row.Message, row.why = r.Message, res.Report.Why
			row.Steps = nil
			rep.CannotGrade++
		} else {
			row.Passed, _, _ = r.Counts()
			row.Tests = len(r.Tests)
		}
		for _, t := range r.Tests {
			if t.Status == grader.StatusPass {
				continue
			}
			if part := notWritten(t); part != "" {
				if !slices.Contains(row.NotWritten, part) {
					row.NotWritten = append(row.NotWritten, part)
				}
				row.NotWrittenTests++
				continue
			}
			for _, id := range t.FailedRules {
				rc := rules[id]
				if rc == nil {
					rc = &RuleCount{Rule: id, Doc: "docs/grading.md#rule-" + string(id)}
					rules[id] = rc
				}
				rc.Tests++
				if !slices.Contains(row.FailedRules, id) {
					row.FailedRules = append(row.FailedRules, id)
					rc.Learners++
					rc.Names = append(rc.Names, row.Name)
				}
				if rc.Example == "" {
					rc.Example, rc.ExampleTest, rc.ExampleLearner = firstLine(t.Message), t.Name, row.Name
					rc.example, rc.kata = t, r.Kata
				}
			}
		}
		rep.Learners = append(rep.Learners, row)
	}
	rep.Gradable = len(rep.Learners) - rep.CannotGrade
	// A folder that is no workspace names no kata; in a class of one kata it is a submission
	// for that kata all the same, worth 0 of its points (a gradebook's 0, not an empty cell).
	if len(rep.Katas) == 1 {
		for i := range rep.Learners {
			if l := &rep.Learners[i]; l.Kata == "" {
				l.Kata, l.Points, l.MaxPoints, l.Percent = rep.Katas[0].Kata, 0, rep.Katas[0].MaxPoints, 0
			}
		}
	}
	for _, rc := range rules {
		rc.Statement = statements[rc.Rule]
		rep.Rules = append(rep.Rules, *rc)
	}
	slices.SortFunc(rep.Rules, func(a, b RuleCount) int {
		return cmp.Or(b.Learners-a.Learners, b.Tests-a.Tests, strings.Compare(string(a.Rule), string(b.Rule)))
	})
	slices.SortStableFunc(rep.Learners, func(a, b LearnerRow) int { return strings.Compare(a.Name, b.Name) })
	return rep
}

// kataSteps lists the packet's graded task steps with what each is worth.
func kataSteps(p *katas.Packet) KataSteps {
	ks := KataSteps{Kata: p.ID, Title: p.Title}
	s := grader.ScoreOf(p, &grader.Report{})
	for _, st := range s.Steps {
		title := ""
		if step, ok := p.Task.Step(st.Step); ok {
			title = step.Title
		}
		ks.Steps = append(ks.Steps, StepInfo{Number: st.Step, Title: title, MaxPoints: st.Max})
	}
	ks.MaxPoints = s.Max
	return ks
}

// Step returns the learner's score for step n, and whether the learner has one.
func (l LearnerRow) Step(n int) (grader.StepScore, bool) {
	i := slices.IndexFunc(l.Steps, func(s grader.StepScore) bool { return s.Step == n })
	if i < 0 {
		return grader.StepScore{}, false
	}
	return l.Steps[i], true
}

// firstLine is s's first line, cut to exampleCap characters.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(line); len(r) > exampleCap {
		return string(r[:exampleCap]) + "…"
	}
	return line
}

// Localize returns a copy of the report for a reader of loc's language, to show (the text
// summary, the HTML report) and never to save: each kata's title and step titles, each broken
// rule's statement
// (grader.Rule.StatementIn) and its example's test name and message (grader.LocalizeTest)
// from words, the library as loc's locale reads it. A rule or example the report read back
// from the results store keeps what it has (the message in English). CSV and JSON are written
// from the report itself, in English. A nil or English loc returns r.
func Localize(r *Report, loc *i18n.Localizer, words *katas.Library) *Report {
	if r == nil || loc == nil || loc.Lang() == katas.English || words == nil {
		return r
	}
	out := *r
	out.Katas = slices.Clone(r.Katas)
	for i, ks := range out.Katas {
		p, ok := words.Get(ks.Kata)
		if !ok {
			continue
		}
		ks.Title, ks.Steps = p.Title, slices.Clone(ks.Steps)
		for j, st := range ks.Steps {
			if step, ok := p.Task.Step(st.Number); ok {
				ks.Steps[j].Title = step.Title
			}
		}
		out.Katas[i] = ks
	}
	out.Rules = slices.Clone(r.Rules)
	for i := range out.Rules {
		rc := &out.Rules[i]
		p, ok := words.Get(rc.kata)
		if !ok {
			continue
		}
		for _, rl := range grader.RulesFor(p) {
			if rl.ID == rc.Rule {
				rc.Statement = rl.StatementIn(loc, p)
			}
		}
		if rc.example.ID != "" {
			t := grader.LocalizeTest(rc.example, loc, p)
			rc.ExampleTest, rc.Example = t.Name, firstLine(t.Message)
		}
	}
	return &out
}

// Percent is points of max in percent, rounded to a whole number (half away from zero): the
// one rounding of every class report and of the progress line. 0 when max is 0.
func Percent(points, max float64) float64 {
	if max == 0 {
		return 0
	}
	return math.Round(100 * points / max)
}

// notWrittenMark is what the templates' unwritten parts say when run ("callWithRetry is not
// written yet (TASK.md, step 6)"): a test that fails with it grades a part the learner never
// wrote, not a rule the learner broke.
const notWrittenMark = "is not written yet"

// notWritten returns the part a failing test found unwritten ("client"), or "".
func notWritten(t grader.TestResult) string {
	if strings.Contains(t.Message, notWrittenMark) || strings.Contains(t.Output, notWrittenMark) {
		return "client"
	}
	return ""
}

// detailCap bounds a message of a learner's detail in the reports, stderrCap a stderr tail: a
// learner's process controls them, and a flood would bury the class.
const (
	detailCap = 2000
	stderrCap = 1200
)

// Truncate cuts a learner's text to n characters, keeping the start (of a message) or, with
// tail, the end (of a stderr tail), and says how much it left out; cut reports it did.
func Truncate(s string, n int, tail bool) (out string, cut bool) {
	r := []rune(s)
	if len(r) <= n {
		return s, false
	}
	note := fmt.Sprintf("[… %d characters left out: kata class grade --learner-files writes them whole]", len(r)-n)
	if tail {
		kept := string(r[len(r)-n:])
		if i := strings.IndexByte(kept, '\n'); i >= 0 && i < len(kept)-1 {
			kept = kept[i+1:] // whole lines only
		}
		return note + "\n" + kept, true
	}
	return string(r[:n]) + "\n" + note, true
}

// Pseudonym is a learner's stable pseudonym under the class's key: "learner-" and eight
// letters and digits of HMAC-SHA256(key, name). The same key and name always give the same
// pseudonym, so reports shared over several runs still line up, and without the key (kept in
// the results store) a pseudonym cannot be traced back to a name by trying the class list.
func Pseudonym(key []byte, name string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(name))
	enc := base32.NewEncoding("abcdefghijkmnpqrstuvwxyz23456789").WithPadding(base32.NoPadding)
	return "learner-" + enc.EncodeToString(m.Sum(nil))[:8]
}

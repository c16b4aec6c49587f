package class

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/internal/termtext"
)

//go:embed report.html
var htmlSource string

// htmlReport is the template of WriteHTML; html/template escapes every learner's text.
var htmlReport = template.Must(template.New("report.html").Parse(htmlSource))

// htmlColumn is one task step column of the heatmap.
type htmlColumn struct {
	Kata, Title string
	Step        int
	// Head is "step 2", Max "5 pts" and Points "5 points", in the reader's language.
	Head, Max, Points string
}

// htmlCell is one learner × step cell: its text ("3/5"), a colour class h0…h10 by the share of
// the step's points earned, and a tooltip.
type htmlCell struct {
	Has                bool
	Text, Class, Title string
}

// htmlRow is one learner of the heatmap, and of the learners' details: Anchor is the id of
// the learner's <details>.
type htmlRow struct {
	Name, Anchor, Error, Points, Percent string
	Cells                                []htmlCell
	// Summary is the details' line ("40/47 passed · 40/47 points (85%)"), NotWritten says
	// which parts the learner never wrote; Failing are the failing tests.
	Summary, NotWritten string
	Failing             []htmlTest
	// Detail is why a learner cannot be graded, whole (up to detailCap).
	Detail string
}

// htmlTest is one failing test in a learner's details: its message and stderr tail cut to
// detailCap.
type htmlTest struct {
	Name, Status, Message, Output string
	Rules                         []grader.RuleID
}

// htmlLink is a learner named in the rules table, linking to the learner's details.
type htmlLink struct{ Name, Anchor string }

// htmlRule is one row of the rules table, with its bar's width in percent.
type htmlRule struct {
	RuleCount
	Width int
	// Breakers is "2 of 3" learners; Lead the example's lead ("e.g. bob, its test:").
	Breakers, Lead string
	// Who are the learners who break it.
	Who []htmlLink
}

// htmlWords are the report's own words in the reader's language; the template escapes them.
type htmlWords struct {
	Title, Generated, Pseudonyms                       string
	CardLearners, CardAverage, CardPassing, CardErrors string
	Heatmap, ColLearner, ColPoints, Legend             string
	Rules, ColRule, ColBreakers, ColTests, ColSays     string
	NoRuleBroken, Errors                               string
	Learners, Failing, NoFailing, Stderr, ColWho       string
	TruncatedNote                                      string
	// Sub's and Footer's sentences hold <code>: built by htmlSentence.
	Seed, Footer template.HTML
}

// WriteHTML writes the class report as one self-contained HTML page in loc's language (nil:
// English; <html lang> says which): no script, no external asset, and a
// Content-Security-Policy that lets the page load nothing. It shows a learners × task steps
// heatmap (points earned of each step's, coloured from red to green), each learner's total,
// the rules the class fails most with how many learners break each and an example, and the
// learners who cannot be graded. Rule ids, test names and the grader's messages stay as the
// report has them.
func WriteHTML(w io.Writer, r *Report, loc *i18n.Localizer) error {
	v := struct {
		R                         *Report
		Lang                      string
		L                         htmlWords
		Kata, Learners, Generated string
		Average, Passing          string
		Multi                     bool
		Span                      int
		Columns                   []htmlColumn
		Rows                      []htmlRow
		Rules                     []htmlRule
		// Errors are the learners who cannot be graded, with why.
		Errors []htmlRow
		// Truncated says some learner's text was cut.
		Truncated bool
	}{R: r, Lang: loc.Lang(), Kata: kataNames(r, loc), Learners: loc.N("count.learner", len(r.Learners)), Multi: len(r.Katas) > 1}
	if !r.Generated.IsZero() {
		v.Generated = r.Generated.Format("2006-01-02 15:04 MST")
	}
	for _, k := range r.Katas {
		for _, s := range k.Steps {
			max := grader.FormatPoints(s.MaxPoints)
			v.Columns = append(v.Columns, htmlColumn{Kata: k.Kata, Title: s.Title, Step: s.Number,
				Head: loc.T("class.html.col_step", "Step", s.Number), Max: loc.T("class.html.col_max", "Max", max), Points: points(loc, s.MaxPoints)})
		}
	}
	v.Span = len(v.Columns) + 2
	sum, passing := 0.0, 0
	anchors := map[string]string{}
	for i, l := range r.Learners {
		anchors[l.Name] = fmt.Sprintf("learner-%d", i+1)
	}
	for _, l := range r.Learners {
		row := htmlRow{Name: termtext.Name(l.Name), Anchor: anchors[l.Name]}
		if l.CannotGrade() {
			msg, cut := Truncate(l.MessageIn(loc), detailCap, false)
			v.Truncated = v.Truncated || cut
			row.Error = loc.T("class.cannot_grade", "Why", clip(firstLine(msg), 72)) // the list below the rules has all of it
			row.Summary, row.Detail = row.Error, msg
			v.Rows = append(v.Rows, row)
			v.Errors = append(v.Errors, htmlRow{Name: termtext.Name(l.Name), Anchor: row.Anchor, Error: msg})
			continue
		}
		row.Summary = loc.T("class.passed", "Passed", l.Passed, "Tests", l.Tests) + " · " + grader.FormatPoints(l.Points) + "/" + grader.FormatPoints(l.MaxPoints) + fmt.Sprintf(" (%.0f%%)", l.Percent)
		var parts []string
		for _, part := range l.NotWritten {
			parts = append(parts, loc.T("class.not_written_long", "Part", part, "Tests", l.NotWrittenTests))
		}
		row.NotWritten = strings.Join(parts, "; ")
		if l.report != nil {
			for _, t := range l.report.Tests {
				if t.Status == grader.StatusPass || notWritten(t) != "" {
					continue
				}
				msg, cut1 := Truncate(t.Message, detailCap, false)
				out, cut2 := Truncate(strings.TrimRight(t.Output, "\n"), stderrCap, true)
				v.Truncated = v.Truncated || cut1 || cut2
				name := t.Name
				if name == "" {
					name = t.ID
				}
				row.Failing = append(row.Failing, htmlTest{Name: name, Status: t.Status, Message: msg, Output: out, Rules: t.FailedRules})
			}
		}
		sum += l.Percent
		if l.Passed == l.Tests && l.Tests > 0 {
			passing++
		}
		row.Points = grader.FormatPoints(l.Points) + "/" + grader.FormatPoints(l.MaxPoints)
		row.Percent = fmt.Sprintf("%.0f", l.Percent)
		for _, c := range v.Columns {
			s, ok := l.Step(c.Step)
			if !ok || c.Kata != l.Kata {
				row.Cells = append(row.Cells, htmlCell{})
				continue
			}
			share := 0.0
			if s.Max > 0 {
				share = s.Points / s.Max
			}
			row.Cells = append(row.Cells, htmlCell{Has: true, Text: grader.FormatPoints(s.Points) + "/" + grader.FormatPoints(s.Max),
				Class: fmt.Sprintf("h%d", int(math.Floor(share*10))),
				Title: loc.T("class.html.cell", "Learner", l.Name, "Step", s.Step, "Passed", s.Passed, "Tests", s.Tests)})
		}
		v.Rows = append(v.Rows, row)
	}
	v.Average, v.Passing = "—", loc.T("class.of", "N", passing, "Total", r.Gradable)
	if r.Gradable > 0 {
		v.Average = fmt.Sprintf("%.0f%%", math.Round(sum/float64(r.Gradable)))
	}
	for _, rc := range r.Rules {
		width := 0
		if r.Gradable > 0 {
			width = int(math.Round(100 * float64(rc.Learners) / float64(r.Gradable)))
		}
		hr := htmlRule{RuleCount: rc, Width: width, Breakers: loc.T("class.of", "N", rc.Learners, "Total", r.Gradable),
			Lead: loc.T("class.example", "Learner", termtext.Name(rc.ExampleLearner), "Test", rc.ExampleTest)}
		for _, n := range rc.Names {
			hr.Who = append(hr.Who, htmlLink{Name: termtext.Name(n), Anchor: anchors[n]})
		}
		v.Rules = append(v.Rules, hr)
	}
	counts := loc.T("class.html.counts", "Graded", r.Graded, "Reused", r.Reused, "Jobs", loc.N("class.count.job", r.Jobs), "Time", seconds(loc, r.DurationMS))
	v.L = htmlWords{
		Title: loc.T("class.html.title", "Kata", v.Kata), Generated: loc.T("class.html.generated", "At", v.Generated),
		Pseudonyms: loc.T("class.html.pseudonyms"), CardLearners: loc.N("class.html.card_learners", len(r.Learners)),
		CardAverage: loc.T("class.html.card_average"), CardPassing: loc.T("class.html.card_passing"), CardErrors: loc.T("class.html.card_errors"),
		Heatmap: loc.T("class.html.heatmap"), ColLearner: loc.T("class.html.col_learner"), ColPoints: loc.T("class.html.col_points"),
		Legend: loc.T("class.html.legend"), Rules: loc.T("class.html.rules"), ColRule: loc.T("class.html.col_rule"),
		ColBreakers: loc.T("class.html.col_breakers"), ColTests: loc.T("class.html.col_tests"), ColSays: loc.T("class.html.col_says"),
		NoRuleBroken: loc.T("class.no_rule_broken"), Errors: loc.T("class.html.errors"),
		Learners: loc.T("class.html.learners"), Failing: loc.T("class.html.failing"), NoFailing: loc.T("class.html.no_failing"),
		Stderr: loc.T("class.html.stderr"), ColWho: loc.T("class.html.col_who"), TruncatedNote: loc.T("class.html.truncated_note"),
		Seed:   htmlSentence(loc, "class.html.seed", "Seed", r.Seed, "Flag", code(fmt.Sprintf("--seed %d", r.Seed))),
		Footer: htmlSentence(loc, "class.html.footer", "Command", code("kata class grade"), "Counts", counts),
	}
	return htmlReport.Execute(w, v)
}

// codeSpan is a template field value htmlSentence shows as <code>Text</code>.
type codeSpan struct{ Text string }

func code(s string) codeSpan { return codeSpan{s} }

// htmlSentence is message id in loc's language as HTML: the message and every field escaped,
// and a codeSpan field as a <code> element. Fields are name, value pairs, as Localizer.T takes
// them.
func htmlSentence(loc *i18n.Localizer, id string, kv ...any) template.HTML {
	kv = slices.Clone(kv)
	var codes []string // placeholder, element: a private-use character (U+E000…) stands for each
	for i := 1; i < len(kv); i += 2 {
		if c, ok := kv[i].(codeSpan); ok {
			mark := string(rune(0xE000 + len(codes)/2))
			kv[i] = mark
			codes = append(codes, mark, "<code>"+template.HTMLEscapeString(c.Text)+"</code>")
		}
	}
	return template.HTML(strings.NewReplacer(codes...).Replace(template.HTMLEscapeString(loc.T(id, kv...))))
}

// points words v points in loc's language ("5 points", "2.5 points"), its plural form by v.
// N counts whole numbers; a fraction is worded as 2 is, which in English and Spanish is its
// CLDR form (other) and in Russian reads the same as it ("2.5 балла", few and other alike).
func points(loc *i18n.Localizer, v float64) string {
	n := int(v)
	if float64(n) != v {
		n = 2
	}
	return loc.N("class.count.point", n, "Points", grader.FormatPoints(v))
}

package class

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/katas"
)

//go:embed report.html
var htmlSource string

// htmlReport is the template of WriteHTML; html/template escapes every learner's text.
var htmlReport = template.Must(template.New("report.html").Parse(htmlSource))

// htmlColumn is one task step column of the heatmap.
type htmlColumn struct {
	Kata, Title string
	Step        int
	Max         string
}

// htmlCell is one learner × step cell: its text ("3/5"), a colour class h0…h10 by the share of
// the step's points earned, and a tooltip.
type htmlCell struct {
	Has                bool
	Text, Class, Title string
}

// htmlRow is one learner of the heatmap.
type htmlRow struct {
	Name, Error, Points, Percent string
	Cells                        []htmlCell
}

// htmlRule is one row of the rules table, with its bar's width in percent.
type htmlRule struct {
	RuleCount
	Width int
}

// WriteHTML writes the class report as one self-contained HTML page: no script, no external
// asset, and a Content-Security-Policy that lets the page load nothing. It shows a learners ×
// task steps heatmap (points earned of each step's, coloured from red to green), each
// learner's total, the rules the class fails most with how many learners break each and an
// example, and the learners who cannot be graded.
func WriteHTML(w io.Writer, r *Report) error {
	v := struct {
		R                         *Report
		Kata, Learners, Generated string
		Average, Passing, Counts  string
		Multi                     bool
		Span                      int
		Columns                   []htmlColumn
		Rows                      []htmlRow
		Rules                     []htmlRule
	}{R: r, Kata: kataNames(r), Learners: katas.Count(len(r.Learners), "learner", "learners"), Multi: len(r.Katas) > 1}
	if !r.Generated.IsZero() {
		v.Generated = r.Generated.Format("2006-01-02 15:04 MST")
	}
	for _, k := range r.Katas {
		for _, s := range k.Steps {
			v.Columns = append(v.Columns, htmlColumn{Kata: k.Kata, Title: s.Title, Step: s.Number, Max: grader.FormatPoints(s.MaxPoints)})
		}
	}
	v.Span = len(v.Columns) + 2
	sum, passing := 0.0, 0
	for _, l := range r.Learners {
		row := htmlRow{Name: l.Name}
		if l.CannotGrade() {
			row.Error = clip(firstLine(l.Message), 72) // the list below the rules has all of it
			v.Rows = append(v.Rows, row)
			continue
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
				Title: fmt.Sprintf("%s · step %d · %d of %d tests passed", l.Name, s.Step, s.Passed, s.Tests)})
		}
		v.Rows = append(v.Rows, row)
	}
	v.Average, v.Passing = "—", fmt.Sprintf("%d of %d", passing, r.Gradable)
	if r.Gradable > 0 {
		v.Average = fmt.Sprintf("%.0f%%", sum/float64(r.Gradable))
	}
	for _, rc := range r.Rules {
		width := 0
		if r.Gradable > 0 {
			width = int(math.Round(100 * float64(rc.Learners) / float64(r.Gradable)))
		}
		v.Rules = append(v.Rules, htmlRule{RuleCount: rc, Width: width})
	}
	v.Counts = strings.Join([]string{
		fmt.Sprintf("%d graded now", r.Graded), fmt.Sprintf("%d unchanged since their stored result", r.Reused),
		katas.Count(r.Jobs, "job", "jobs"), fmt.Sprintf("%.1f s", float64(r.DurationMS)/1000),
	}, ", ")
	return htmlReport.Execute(w, v)
}

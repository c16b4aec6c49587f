package class

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/internal/i18n"
	"github.com/kata-mcp/kata/internal/termtext"
)

// summaryCap bounds a cannot-grade reason in the terminal summary (the HTML report has more).
const summaryCap = 600

// TopRules is how many of the rules the class fails most the text summary lists (the HTML
// report and the JSON list all of them).
const TopRules = 10

// WriteText writes the terminal summary in loc's language (nil: English): one line per
// learner (tests passed of all, points and percentage, or why the learner cannot be graded),
// the rules the class fails most with how many learners broke each and one example message,
// the learners who cannot be graded, and a closing line with the counts, the seed and the
// time. Rule ids, test names and the grader's messages stay as the report has them; a
// learner's folder name is quoted when it holds a control character (termtext.Name).
func WriteText(w io.Writer, r *Report, loc *i18n.Localizer) {
	fmt.Fprintf(w, "%s\n\n", loc.T("class.text.title", "Learners", loc.N("count.learner", len(r.Learners)), "Katas", kataNames(r, loc),
		"Seed", loc.T("grade.seed_repeat", "Seed", r.Seed)))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	multi := len(r.Katas) > 1
	head := "  " + loc.T("class.text.col_learner") + "\t"
	if multi {
		head += loc.T("class.text.col_kata") + "\t"
	}
	// The last cell of a line is not aligned, so a long "cannot grade" reason widens nothing.
	fmt.Fprintln(tw, head+loc.T("class.text.col_tests")+"\t"+loc.T("class.text.col_points"))
	for _, l := range r.Learners {
		line := "  " + termtext.Name(l.Name) + "\t"
		if multi {
			line += l.Kata + "\t"
		}
		if l.CannotGrade() {
			line += loc.T("class.cannot_grade", "Why", firstLine(l.MessageIn(loc)))
		} else {
			line += loc.T("class.passed", "Passed", l.Passed, "Tests", l.Tests) +
				fmt.Sprintf("\t%s/%s (%.0f%%)", grader.FormatPoints(l.Points), grader.FormatPoints(l.MaxPoints), l.Percent)
			for _, part := range l.NotWritten {
				line += " · " + loc.T("class.not_written", "Part", part)
			}
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()

	if len(r.Rules) > 0 {
		fmt.Fprintf(w, "\n%s\n", loc.N("class.text.rules_title", r.Gradable))
		for i, rc := range r.Rules {
			if i == TopRules {
				fmt.Fprintf(w, "  %s\n", loc.N("class.text.more_rules", len(r.Rules)-TopRules))
				break
			}
			fmt.Fprintf(w, "  %2d. %s · %s, %s", i+1, rc.Rule, loc.N("count.learner", rc.Learners), loc.N("count.test", rc.Tests))
			if rc.Statement != "" {
				fmt.Fprintf(w, " · %s", rc.Statement)
			}
			fmt.Fprintf(w, "\n      %s %s\n", loc.T("class.example", "Learner", termtext.Name(rc.ExampleLearner), "Test", rc.ExampleTest), rc.Example)
		}
	} else if r.Gradable > 0 {
		fmt.Fprintf(w, "\n%s\n", loc.T("class.no_rule_broken"))
	}
	if r.CannotGrade > 0 {
		fmt.Fprintf(w, "\n%s\n", loc.T("class.text.cannot_title", "Learners", loc.N("count.learner", r.CannotGrade)))
		for _, l := range r.Learners {
			if l.CannotGrade() {
				msg, _ := Truncate(l.MessageIn(loc), summaryCap, false)
				fmt.Fprintf(w, "  %s: %s\n", termtext.Name(l.Name), indentRest(msg, "    "))
			}
		}
	}
	fmt.Fprintf(w, "\n%s\n", loc.T("class.text.closing", "Learners", loc.N("count.learner", len(r.Learners)), "Graded", r.Graded,
		"Reused", r.Reused, "CannotGrade", r.CannotGrade, "Jobs", loc.N("class.count.job", r.Jobs), "Time", seconds(loc, r.DurationMS)))
}

// seconds words a duration of ms milliseconds in seconds with one decimal ("1.5 s").
func seconds(loc *i18n.Localizer, ms int64) string {
	return loc.T("class.seconds", "Seconds", fmt.Sprintf("%.1f", float64(ms)/1000))
}

// kataNames lists the class's katas ("no kata" in loc's language when it has none).
func kataNames(r *Report, loc *i18n.Localizer) string {
	var ids []string
	for _, k := range r.Katas {
		ids = append(ids, k.Kata)
	}
	if len(ids) == 0 {
		return loc.T("class.no_kata")
	}
	return strings.Join(ids, ", ")
}

// indentRest indents every line of s after the first.
func indentRest(s, prefix string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

// WriteCSV writes the class as CSV (RFC 4180), for a gradebook: a header, then one row per
// learner with its name, kata, status, tests passed and run, the points of each task step
// (one column per step of every kata of the class; empty for a step the learner's kata does
// not have or a learner who cannot be graded), the total, the maximum, the percentage and,
// for a learner who cannot be graded, why.
func WriteCSV(w io.Writer, r *Report) error {
	cw := csv.NewWriter(w)
	head := []string{"learner", "kata", "status", "passed", "tests"}
	if r.Rostered {
		head = append(head[:1], append([]string{"student_id", "email"}, head[1:]...)...)
	}
	type col struct {
		kata string
		step int
	}
	var cols []col
	for _, k := range r.Katas {
		for _, s := range k.Steps {
			name := fmt.Sprintf("step %d (%s points)", s.Number, grader.FormatPoints(s.MaxPoints))
			if len(r.Katas) > 1 {
				name = k.Kata + " " + name
			}
			head = append(head, name)
			cols = append(cols, col{k.Kata, s.Number})
		}
	}
	head = append(head, "points", "max_points", "percent", "message")
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, l := range r.Learners {
		row := []string{textCell(l.Name), l.Kata, l.Status, "", ""}
		if !l.CannotGrade() {
			row[3], row[4] = fmt.Sprint(l.Passed), fmt.Sprint(l.Tests)
		}
		if r.Rostered {
			row = append(row[:1], append([]string{textCell(l.StudentID), textCell(l.Email)}, row[1:]...)...)
		}
		for _, c := range cols {
			cell := ""
			if s, ok := l.Step(c.step); ok && c.kata == l.Kata {
				cell = grader.FormatPoints(s.Points)
			}
			row = append(row, cell)
		}
		pts, max, pct := "", "", ""
		if l.MaxPoints > 0 {
			pts, max, pct = grader.FormatPoints(l.Points), grader.FormatPoints(l.MaxPoints), fmt.Sprint(l.Percent)
		}
		// one line of a bounded length: a learner's flood stays out of the gradebook
		row = append(row, pts, max, pct, textCell(firstLine(l.Message)))
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// textCell keeps a text cell from being read as a formula by a spreadsheet: one that starts
// with '=', '+', '-', '@', a tab or a carriage return gets a leading apostrophe (OWASP, "CSV
// Injection"). Names and messages can carry a learner's own text.
func textCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// WriteJSON writes the class report as indented JSON.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// unsafeName matches what a learner file's name may not hold.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// WriteLearnerFiles writes each learner's own reports into dir: NAME.results.json (the
// grader's JSON report, docs/grading.md#json-report) and NAME.junit.xml (JUnit XML), NAME
// being the learner's name (or pseudonym) with other characters than letters, digits, '.',
// '_' and '-' turned into '_'. Learner files of an earlier run that this one does not write
// (named files, when this run is anonymized; a learner gone since) are removed, so the folder
// never holds named files beside pseudonymous ones. It returns the paths written.
func WriteLearnerFiles(dir string, r *Report) ([]string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	keep := map[string]bool{}
	for _, l := range r.Learners {
		base := unsafeName.ReplaceAllString(l.Name, "_")
		keep[base+".results.json"], keep[base+".junit.xml"] = true, true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && !keep[n] && (strings.HasSuffix(n, ".results.json") || strings.HasSuffix(n, ".junit.xml")) {
			if err := os.Remove(filepath.Join(dir, n)); err != nil {
				return nil, err
			}
		}
	}
	var paths []string
	for _, l := range r.Learners {
		rep := *l.report
		if r.Anonymized {
			rep.Workspace = l.Name
		}
		base := filepath.Join(dir, unsafeName.ReplaceAllString(l.Name, "_"))
		for _, f := range []struct {
			ext   string
			write func(io.Writer, *grader.Report) error
		}{{".results.json", grader.WriteJSON}, {".junit.xml", grader.WriteJUnit}} {
			if err := writeFile(base+f.ext, func(w io.Writer) error { return f.write(w, &rep) }); err != nil {
				return paths, err
			}
			paths = append(paths, base+f.ext)
		}
	}
	return paths, nil
}

// writeFile writes path through fn, naming the path in any error; a new file is 0600 (a
// learner's results are theirs and the instructor's).
func writeFile(path string, fn func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}

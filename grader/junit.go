package grader

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	SystemErr string        `xml:"system-err,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML for CI systems: one testsuite named after the
// kata, one testcase per test (classname "<kata>.step<N>"), failures and errors with their
// messages, the server's stderr tail as system-err, and the seed as a property. A report
// with status error becomes a single errored testcase "grading".
func WriteJUnit(w io.Writer, r *Report) error {
	secs := func(ms int64) string { return fmt.Sprintf("%.3f", float64(ms)/1000) }
	name := r.Kata
	if name == "" {
		name = "kata"
	}
	suite := junitSuite{
		Name: name, Time: secs(r.DurationMS),
		Properties: []junitProperty{{"seed", fmt.Sprint(r.Seed)}, {"workspace", r.Workspace}, {"status", r.Status}},
	}
	firstLine := func(s string) string {
		line, _, _ := strings.Cut(s, "\n")
		return line
	}
	if r.Status == StatusError {
		suite.Cases = append(suite.Cases, junitCase{Name: "grading", Classname: name, Time: secs(r.DurationMS),
			Error: &junitProblem{Message: firstLine(r.Message), Text: r.Message}})
		suite.Errors = 1
	}
	for _, t := range r.Tests {
		c := junitCase{Name: t.Name, Classname: fmt.Sprintf("%s.step%d", name, t.Step), Time: fmt.Sprintf("%.3f", t.Duration.Seconds())}
		switch t.Status {
		case StatusFail:
			c.Failure = &junitProblem{Message: firstLine(t.Message), Text: t.Message}
			suite.Failures++
		case StatusError:
			c.Error = &junitProblem{Message: firstLine(t.Message), Text: t.Message}
			suite.Errors++
		}
		if t.Status != StatusPass {
			c.SystemErr = t.Output
		}
		suite.Cases = append(suite.Cases, c)
	}
	suite.Tests = len(suite.Cases)
	doc := junitSuites{Name: "kata grade", Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors, Time: suite.Time, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

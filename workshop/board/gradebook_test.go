package board

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// gradebookFixture is a class of three: two on the roster (one without an email), one not.
func gradebookFixture() ([]GradebookRow, []GradebookColumn) {
	rows := []GradebookRow{
		{Key: "id:S1", Name: "Zoë, Ana", StudentID: "S1", Email: "ana@example.edu"},
		{Key: "id:S2", Name: "Ben", StudentID: "S2"},
		{Key: "name:ben (2)", Name: "Ben (2)"},
	}
	cols := []GradebookColumn{
		{Header: "k live (48 points)", Max: "48", Values: map[string]string{"id:S1": "47.5", "name:ben (2)": "12"}},
		{Header: "k batch (48 points)", Max: "48", Values: map[string]string{"id:S1": "48", "id:S2": "0"}},
	}
	return rows, cols
}

// number reports whether a grade cell is empty or a plain decimal number with a point, as
// both importers read it whatever the site's locale.
func number(s string) bool {
	if s == "" {
		return true
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil && !strings.ContainsAny(s, ", eE")
}

// TestCanvasGradebook reads gradebook-canvas.csv the way Canvas's Gradebook import does
// (Canvas Community, "How do I import grades in the Gradebook?"): UTF-8 CSV, a header of
// Student, ID, SIS User ID, SIS Login ID, Section, then only assignment columns (every other
// column becomes an assignment); a "Points Possible" row giving each new assignment its
// points; one row per student, found by SIS User ID, else by name.
func TestCanvasGradebook(t *testing.T) {
	rows, cols := gradebookFixture()
	var b bytes.Buffer
	if err := WriteCanvasGradebook(&b, rows, cols); err != nil {
		t.Fatal(err)
	}
	raw := b.Bytes()
	if !utf8.Valid(raw) || bytes.HasPrefix(raw, []byte("\ufeff")) {
		t.Errorf("not UTF-8 without a byte-order mark: %q", raw[:min(len(raw), 8)])
	}
	recs, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil {
		t.Fatalf("not RFC 4180 CSV: %v\n%s", err, raw)
	}
	student := []string{"Student", "ID", "SIS User ID", "SIS Login ID", "Section"}
	if len(recs) < 2 || !slices.Equal(recs[0][:5], student) {
		t.Fatalf("header %q, want it to start with %q", recs[0], student)
	}
	assignments := recs[0][5:]
	if !slices.Equal(assignments, []string{"k live (48 points)", "k batch (48 points)"}) {
		t.Errorf("assignment columns %q: every column after Section is an assignment to Canvas", assignments)
	}
	if pp := recs[1]; pp[0] != "Points Possible" || !slices.Equal(pp[5:], []string{"48", "48"}) {
		t.Errorf("second row %q, want Points Possible with each assignment's points", pp)
	}
	byName := map[string][]string{}
	for _, r := range recs[2:] {
		if len(r) != len(recs[0]) {
			t.Errorf("row %q has %d cells, the header %d", r, len(r), len(recs[0]))
			continue
		}
		for _, v := range r[5:] {
			if !number(v) {
				t.Errorf("row %q: grade %q is not a number Canvas reads", r, v)
			}
		}
		byName[r[0]] = r
	}
	if r := byName["Zoë, Ana"]; r == nil || r[2] != "S1" || r[5] != "47.5" || r[6] != "48" {
		t.Errorf("Ana's row %q", r)
	}
	if r := byName["Ben (2)"]; r == nil || r[2] != "" || r[5] != "12" || r[6] != "" {
		t.Errorf("the learner off the roster: %q (found by name, no SIS User ID)", r)
	}
}

// TestMoodleGradebook reads gradebook-moodle.csv the way Moodle's CSV grade import does
// (MoodleDocs, "Grade import"): UTF-8, comma-separated; one column is mapped to a user field
// ("ID number" to idnumber, or "Email address" to email) and every row must name a user
// there — a row that names none fails the import — and the grade columns are numbers.
func TestMoodleGradebook(t *testing.T) {
	rows, cols := gradebookFixture()
	var b bytes.Buffer
	left, err := WriteMoodleGradebook(&b, rows, cols)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(left, []string{"Ben (2)"}) {
		t.Errorf("left out %q, want the learner with no student id", left)
	}
	raw := b.Bytes()
	if !utf8.Valid(raw) || bytes.HasPrefix(raw, []byte("\ufeff")) {
		t.Errorf("not UTF-8 without a byte-order mark")
	}
	recs, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v\n%s", err, raw)
	}
	head := recs[0]
	id := slices.Index(head, "ID number")
	if id < 0 || slices.Contains(head, "Email address") {
		t.Errorf("header %q: want an ID number column, and no Email address column when a row has no email", head)
	}
	for _, r := range recs[1:] {
		if r[id] == "" || strings.Contains(r[0], "Points Possible") {
			t.Errorf("row %q names no user: Moodle would stop the import there", r)
		}
		for i, h := range head {
			if strings.HasSuffix(h, " points)") && !number(r[i]) {
				t.Errorf("row %q: grade %q in %q is not a number", r, r[i], h)
			}
		}
	}
	if len(recs) != 3 || recs[1][id] != "S1" || recs[2][id] != "S2" {
		t.Errorf("rows %q, want S1 and S2", recs[1:])
	}
	// When every row has an email, the Email address column is there too.
	b.Reset()
	if _, err := WriteMoodleGradebook(&b, rows[:1], cols); err != nil {
		t.Fatal(err)
	}
	if recs, _ := csv.NewReader(&b).ReadAll(); !slices.Contains(recs[0], "Email address") || !slices.Contains(recs[1], "ana@example.edu") {
		t.Errorf("a class with emails: %q", recs)
	}
}

package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/grader/class"
	"github.com/kata-mcp/kata/internal/progress"
	"github.com/kata-mcp/kata/workshop"
	"github.com/kata-mcp/kata/workshop/learner"
	"github.com/kata-mcp/kata/workshop/server"
	"github.com/kata-mcp/kata/workshop/store"
)

// TestClassExport: a live class of two (one of them joined twice under one name) is exported
// as learners.csv/json, the event log, and a gradebook whose rows are the roster's student ids
// with the live points and the batch points of the same kata side by side.
func TestClassExport(t *testing.T) {
	hermeticState(t)
	dir := t.TempDir()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(dir, "workshop.db"))
	if err != nil {
		t.Fatal(err)
	}
	ws, _, err := st.OpenWorkshop(ctx, []string{"mcp-structured-errors"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	join := func(id, name, tok string) {
		if _, err := st.Join(ctx, store.Learner{ID: id, Workshop: ws.ID, Name: name, Joined: t0}, tok, store.JoinLimits{}); err != nil {
			t.Fatal(err)
		}
	}
	join("L1", "Ana", "h1")
	join("L2", "Ben", "h2")
	join("L3", "Ben", "h3") // a second Ben: "Ben (2)"
	verdict := &workshop.Verdict{Status: "pass", Passed: 2, Tests: []workshop.TestVerdict{{ID: "tools-list", Status: "pass", Step: 1}, {ID: "x", Status: "pass", Step: 2}}}
	if _, _, err := st.Append(ctx, ws.ID, "L1", []workshop.Event{
		{ID: "a1", Kind: workshop.KindLayer, Kata: "mcp-structured-errors", Layer: "knowledge", At: t0},
		{ID: "a2", Kind: workshop.KindAnswer, Kata: "mcp-structured-errors", At: t0, Answer: &workshop.Answer{Item: "se-01", Correct: true, Source: workshop.SourceLive}},
		{ID: "a3", Kind: workshop.KindVerdict, Kata: "mcp-structured-errors", At: t0, Verdict: verdict},
	}, t0.Add(30*time.Minute)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	roster := filepath.Join(dir, "roster.csv")
	os.WriteFile(roster, []byte("name,student_id,email\nAna,S1,ana@example.edu\nBen,S2,ben@example.edu\n"), 0o600)
	batch := filepath.Join(dir, "batch")
	cs, err := class.OpenStore(filepath.Join(batch, class.StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	rep := &grader.Report{Version: 3, Status: grader.StatusPass, Kata: "mcp-structured-errors", Tests: []grader.TestResult{{ID: "tools-list", Status: grader.StatusPass, Step: 1}}}
	if err := cs.Save(class.Stored{Learner: class.Learner{Name: "Ana", Dir: "/class/Ana"}, Report: rep, GradedAt: t0}); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	out := filepath.Join(dir, "export")
	stdout, stderr, code := runKata(t, "class", "export", "--db", filepath.Join(dir, "workshop.db"), "--code", ws.Code, "--out", out, "--roster", roster, "--batch", batch)
	if code != 0 || !strings.Contains(stdout, "3 learners") || !strings.Contains(stderr, "Ben (2)") {
		t.Fatalf("export: %d\n%s\n%s", code, stdout, stderr)
	}
	read := func(name string) [][]string {
		f, err := os.Open(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if st, _ := f.Stat(); st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", name, st.Mode().Perm())
		}
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	book := read("gradebook-canvas.csv")
	head := strings.Join(book[0], ",")
	if head != "Student,ID,SIS User ID,SIS Login ID,Section,mcp-structured-errors live (48 points),mcp-structured-errors batch (48 points)" {
		t.Errorf("Canvas gradebook header %q", head)
	}
	if len(book) != 5 || book[1][0] != "Points Possible" || book[1][5] != "48" || book[2][0] != "Ana" || book[2][2] != "S1" || book[2][5] == "" || book[2][6] == "" {
		t.Errorf("Canvas gradebook %q", book)
	}
	moodle := read("gradebook-moodle.csv")
	if strings.Join(moodle[0], ",") != "ID number,Email address,Full name,mcp-structured-errors live (48 points),mcp-structured-errors batch (48 points)" ||
		len(moodle) != 3 || moodle[1][0] != "S1" || moodle[1][1] != "ana@example.edu" {
		t.Errorf("Moodle gradebook %q", moodle)
	}
	if !strings.Contains(stderr, "gradebook-moodle.csv leaves out 1 learners without a student id") {
		t.Errorf("stderr does not name the learner left out of the Moodle gradebook:\n%s", stderr)
	}
	learners := read("learners.csv")
	if len(learners) != 4 || learners[1][0] != "Ana" || learners[1][2] != "S1" || learners[3][0] != "Ben (2)" {
		t.Errorf("learners.csv %q", learners)
	}
	b, _ := os.ReadFile(filepath.Join(out, "events.jsonl"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var e workshop.Event
	if len(lines) != 6 || json.Unmarshal([]byte(lines[5]), &e) != nil || e.Kind != workshop.KindVerdict {
		t.Errorf("events.jsonl: %d lines, last %q", len(lines), lines[len(lines)-1])
	}
}

// TestStatsSendsTheQueue: a learner who only uses the command line has what their progress
// store queued for the workshop sent by the next kata command that opens it (kata stats).
func TestStatsSendsTheQueue(t *testing.T) {
	path := hermeticState(t)
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "workshop.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lib := library(t)
	srv := server.New(st, lib, server.Options{})
	defer srv.Close()
	class, _, _, err := srv.Open(ctx, []string{"mcp-structured-errors"}, server.Opening{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	ps, err := progress.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	a := learner.New(ps, learner.Options{}) // kata join: it ends with the command
	if _, err := a.Join(ctx, hs.URL+"/"+class.Code(), "Ana"); err != nil {
		t.Fatal(err)
	}
	a.Close()
	// no app runs: the layer read waits in the queue
	if err := ps.LayerRead("mcp-structured-errors", "knowledge", time.Now()); err != nil {
		t.Fatal(err)
	}
	ps.Close()
	if _, stderr, code := runKata(t, "stats"); code != 0 {
		t.Fatalf("stats: %d %s", code, stderr)
	}
	v := class.View()
	if len(v.Rows) != 1 || v.Rows[0].Cells[0].Layer != 1 {
		t.Errorf("after kata stats the board shows %+v", v.Rows)
	}
}

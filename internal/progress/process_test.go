package progress

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The child-process tests re-execute this test binary with helperEnv set; TestHelperProcess
// then plays the second app instance instead of testing.
const helperEnv = "KATA_PROGRESS_HELPER"

// TestHelperProcess is the child side. Modes:
//   - "writer N WHO": wait for one byte on stdin (the start barrier), run writeLoad, print "done".
//   - "exam": start an attempt and save exam answers k1/q-0, k1/q-1, … printing "saved I"
//     after each commit, until killed (or 100000 answers).
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("child-process helper; runs only when re-executed by another test")
	}
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(3)
	}
	s, err := Open(os.Getenv(EnvPath))
	if err != nil {
		fail(err)
	}
	f := strings.Fields(mode)
	switch f[0] {
	case "writer":
		n, _ := strconv.Atoi(f[1])
		if _, err := os.Stdin.Read(make([]byte, 1)); err != nil {
			fail(err)
		}
		if err := writeLoad(s, f[2], n); err != nil {
			fail(err)
		}
		fmt.Println("done")
	case "exam":
		id, err := s.StartAttempt(Attempt{Katas: []string{"k1"}, Items: []string{"k1/q-0"}, Started: t0})
		if err != nil {
			fail(err)
		}
		for i := range 100000 {
			if err := s.SaveExamAnswer(id, fmt.Sprintf("k1/q-%d", i), []string{"a"}, false, t0); err != nil {
				fail(err)
			}
			fmt.Printf("saved %d\n", i)
		}
	}
	s.Close()
	os.Exit(0)
}

// child starts this test binary as a helper in mode, on the store at path.
func child(t *testing.T, path, mode string) (*exec.Cmd, io.WriteCloser, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, EnvPath+"="+path)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	must(t, err)
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, in, bufio.NewScanner(out)
}

// Two kata processes (and this one) writing progress at once leave a consistent store:
// integrity_check ok, counts add up, and no lost update on the cards they share.
func TestTwoProcessesWriteAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	s, path := openTemp(t)
	const n = 40
	var cmds []*exec.Cmd
	var outs []*bufio.Scanner
	var ins []io.WriteCloser
	for _, who := range []string{"p1", "p2"} {
		cmd, in, out := child(t, path, fmt.Sprintf("writer %d %s", n, who))
		cmds, ins, outs = append(cmds, cmd), append(ins, in), append(outs, out)
	}
	// Release both children at once, then write from this process too.
	for _, in := range ins {
		_, err := in.Write([]byte{1})
		must(t, err)
		in.Close()
	}
	must(t, writeLoad(s, "parent", n))
	for i, cmd := range cmds {
		var last string
		for outs[i].Scan() {
			last = outs[i].Text()
		}
		if err := cmd.Wait(); err != nil || last != "done" {
			t.Fatalf("child %d: %v, last line %q", i, err, last)
		}
	}
	checkConsistent(t, s, 3*n, 3*n/5, 3*n)
	ea := 0
	must(t, s.db.QueryRow(`SELECT count(*) FROM exam_answers`).Scan(&ea))
	if ea != 3*n {
		t.Fatalf("exam answers %d, want %d", ea, 3*n)
	}
}

// An exam answer saved and then the process killed with SIGKILL is there after reopening,
// and stats count it as in progress.
func TestSIGKILLKeepsSavedAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	_, path := openTemp(t)
	cmd, _, out := child(t, path, "exam")
	const seen = 30
	last := -1
	for last < seen-1 && out.Scan() {
		n, err := strconv.Atoi(strings.TrimPrefix(out.Text(), "saved "))
		must(t, err)
		last = n
	}
	if last != seen-1 {
		t.Fatalf("child stopped after %d answers", last+1)
	}
	must(t, cmd.Process.Signal(syscall.SIGKILL))
	err := cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child was not killed by SIGKILL: %v", err)
	}

	s, err := Open(path)
	must(t, err)
	defer s.Close()
	a, err := s.OpenAttempt()
	must(t, err)
	if a == nil {
		t.Fatal("the killed child's attempt is gone")
	}
	ea, err := s.ExamAnswers(a.ID)
	must(t, err)
	for i := range seen {
		if _, ok := ea[fmt.Sprintf("k1/q-%d", i)]; !ok {
			t.Fatalf("answer k1/q-%d, reported saved before the kill, is missing (have %d)", i, len(ea))
		}
	}
	st, err := s.Stats(t0)
	must(t, err)
	if st.InProgress != len(ea) || st.Open == nil || st.Open.Answered != len(ea) || len(st.Katas) != 1 || st.Katas[0].InProgress != len(ea) {
		t.Fatalf("stats after the kill: %+v (saved answers %d)", st, len(ea))
	}
	var ic string
	must(t, s.db.QueryRow(`PRAGMA integrity_check`).Scan(&ic))
	if ic != "ok" {
		t.Fatalf("integrity_check: %s", ic)
	}
	t.Logf("child killed after reporting %d saves; %d answers in the store after reopening", seen, len(ea))
}

// fileSizes returns the progress file's size and its -wal file's size (0 if none).
func fileSizes(path string) (db, wal int64) {
	if fi, err := os.Stat(path); err == nil {
		db = fi.Size()
	}
	if fi, err := os.Stat(path + "-wal"); err == nil {
		wal = fi.Size()
	}
	return db, wal
}

// answerLoad records n practice answers the way a learner produces them: 100 item cards over
// 4 katas, each answered n/100 times a day apart, two option ids chosen, mixed right/wrong.
func answerLoad(s *Store, n int) error {
	for i := range n {
		kata := fmt.Sprintf("mcp-kata-%d", i%4)
		item := fmt.Sprintf("it-%02d", i%25)
		err := s.RecordAnswer(Answer{Kata: kata, ItemID: item, CardID: itemCard(kata, item), Chosen: []string{"a", "c"},
			Correct: i%4 != 0, Elapsed: time.Duration(5+i%30) * time.Second, At: t0.Add(time.Duration(i/100) * 24 * time.Hour)})
		if err != nil {
			return err
		}
	}
	return nil
}

// TestStoreSize1000Answers logs the file's size after 1,000 practice answers (each also a
// card review); a figure to report, not an assertion.
func TestStoreSize1000Answers(t *testing.T) {
	s, path := openTemp(t)
	must(t, answerLoad(s, 1000))
	db, wal := fileSizes(path)
	var pages, pageSize int
	must(t, s.db.QueryRow(`PRAGMA page_count`).Scan(&pages))
	must(t, s.db.QueryRow(`PRAGMA page_size`).Scan(&pageSize))
	_, err := s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	must(t, err)
	dbAfter, walAfter := fileSizes(path)
	st, err := s.Stats(t0)
	must(t, err)
	if st.Answered != 1000 || st.Reviews != 1000 || st.Cards != 100 {
		t.Fatalf("stats: %+v", st)
	}
	t.Logf("1,000 answers (100 cards, 1,000 reviews): %s = %d bytes (%d pages × %d) + -wal %d bytes; after checkpoint %d bytes, -wal %d",
		filepath.Base(path), db, pages, pageSize, wal, dbAfter, walAfter)
}

// BenchmarkRecordAnswer measures one practice answer (insert + card review, one
// transaction, synchronous commit) and reports the file's bytes per answer.
func BenchmarkRecordAnswer(b *testing.B) {
	path := filepath.Join(b.TempDir(), "progress.db")
	s, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.ResetTimer()
	if err := answerLoad(s, b.N); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	db, _ := fileSizes(path)
	b.ReportMetric(float64(db)/float64(b.N), "file-bytes/answer")
}

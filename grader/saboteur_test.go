package grader_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kata-mcp/kata/grader"
)

// hammer is Python that a saboteur's server runs beside its own (correct) work: a thread that
// sends junk requests, without any token, to every port listening on the machine's loopback —
// the other grades' Orders APIs among them, found in /proc/net/tcp as any learner could.
const hammer = `
import threading as _t, socket as _s, time as _time
def _ports():
    out = set()
    for line in open("/proc/net/tcp").read().splitlines()[1:]:
        f = line.split()
        local, state = f[1], f[3]
        ip, port = local.split(":")
        if state == "0A" and ip == "0100007F":
            out.add(int(port, 16))
    return out
def _hammer():
    deadline = _time.time() + 120
    n = 0
    while _time.time() < deadline:
        for p in _ports():
            for path in ("/orders/", "/orders/ORD-0000", "/customers/x/orders?page=1", "/nowhere"):
                try:
                    c = _s.create_connection(("127.0.0.1", p), timeout=0.2)
                    c.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path).encode())
                    c.recv(256)
                    c.close()
                    n += 1
                except Exception:
                    pass
        _time.sleep(0.01)
_t.Thread(target=_hammer, daemon=True).start()
`

// verdict is a report's status and each test's, the part of a report a saboteur must not change.
func verdict(rep *grader.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %g/%g %s\n", rep.Status, rep.Points, rep.MaxPoints, rep.Message)
	for _, tc := range rep.Tests {
		fmt.Fprintf(&b, "%s %s\n", tc.ID, tc.Status)
	}
	return b.String()
}

// TestHostileSaboteurChangesNoHonestVerdict: in a class of three graded at once, a learner whose
// server hammers every loopback port with requests lacking any token (every other grade's
// Orders API among them) changes neither honest learner's verdict, in any of several runs; each
// verdict is the one the learner gets graded alone with the same seed.
func TestHostileSaboteurChangesNoHonestVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("grades three learners several times")
	}
	lib := library(t)
	honest := []string{
		workspace(t, lib, "mcp-error-responses", "python", "testdata/references/mcp-error-responses/python/correct"),
		workspace(t, lib, "mcp-error-responses", "python", "testdata/references/mcp-error-responses/python/correct"),
	}
	saboteur := workspace(t, lib, "mcp-error-responses", "python", "testdata/references/mcp-error-responses/python/correct")
	src, err := os.ReadFile(filepath.Join(saboteur, "server.py"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(saboteur, "server.py"), append([]byte(hammer), src...), 0o644)
	opts := grader.Options{Seed: 11, SeedSet: true}
	alone := verdict(grader.Grade(context.Background(), lib, honest[0], opts))
	if !strings.HasPrefix(alone, "pass") {
		t.Fatalf("the honest learner alone does not pass:\n%s", alone)
	}
	for run := range 3 {
		reps := make([]*grader.Report, 3)
		var wg sync.WaitGroup
		for i, ws := range append(honest, saboteur) {
			wg.Go(func() { reps[i] = grader.Grade(context.Background(), lib, ws, opts) })
		}
		wg.Wait()
		for i := range honest {
			if got := verdict(reps[i]); got != alone {
				t.Errorf("run %d: honest learner %d graded beside the saboteur:\n%s\nalone:\n%s", run+1, i+1, got, alone)
			}
		}
	}
}

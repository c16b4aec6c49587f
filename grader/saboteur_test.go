package grader_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kata-mcp/kata/grader"
)

// hammer is Python that a saboteur's server runs beside its own (correct) work: a thread that
// sends junk requests, without any token, to the loopback ports listed in ports.txt in its
// workspace — the other grades' Orders APIs. A learner finds them in /proc/net/tcp; the test
// lists only its own process's ports there, so that no other program on the machine is hit.
const hammer = `
import threading as _t, socket as _s, time as _time
def _ports():
    try:
        return [int(p) for p in open("ports.txt").read().split()]
    except Exception:
        return []
def _hammer():
    deadline = _time.time() + 120
    while _time.time() < deadline:
        for p in _ports():
            for path in ("/orders/", "/orders/ORD-0000", "/customers/x/orders?page=1", "/nowhere"):
                try:
                    c = _s.create_connection(("127.0.0.1", p), timeout=0.2)
                    c.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path).encode())
                    c.recv(256)
                    c.close()
                except Exception:
                    pass
        _time.sleep(0.01)
_t.Thread(target=_hammer, daemon=True).start()
`

// ownListeningPorts lists the loopback TCP ports this process listens on (its sockets' inodes
// in /proc/self/fd, matched in /proc/net/tcp).
func ownListeningPorts() []string {
	inodes := map[string]bool{}
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		if link, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(link, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
		}
	}
	b, _ := os.ReadFile("/proc/net/tcp")
	var ports []string
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 10 || f[3] != "0A" || !inodes[f[9]] {
			continue
		}
		if ip, port, ok := strings.Cut(f[1], ":"); ok && ip == "0100007F" {
			if n, err := strconv.ParseUint(port, 16, 16); err == nil {
				ports = append(ports, strconv.FormatUint(n, 10))
			}
		}
	}
	return ports
}

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
// server hammers the other grades' Orders APIs with requests lacking any token changes neither honest learner's verdict, in any of several runs; each
// verdict is the one the learner gets graded alone with the same seed.
func TestHostileSaboteurChangesNoHonestVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("grades three learners several times")
	}
	lib := library(t)
	honest := []string{
		workspace(t, lib, "mcp-error-responses", "python", filepath.Join("..", "testdata", "references", "mcp-error-responses", "python", "correct")),
		workspace(t, lib, "mcp-error-responses", "python", filepath.Join("..", "testdata", "references", "mcp-error-responses", "python", "correct")),
	}
	saboteur := workspace(t, lib, "mcp-error-responses", "python", filepath.Join("..", "testdata", "references", "mcp-error-responses", "python", "correct"))
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
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			tmp := filepath.Join(saboteur, "ports.tmp")
			os.WriteFile(tmp, []byte(strings.Join(ownListeningPorts(), " ")), 0o644)
			os.Rename(tmp, filepath.Join(saboteur, "ports.txt"))
		}
	}()
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

package grader_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/grader/sandbox"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
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

// saboteurFixtures are the server fixtures of mcp-error-responses the saboteur test grades:
// those whose verdict counts the requests an id got (a saboteur's junk request for one would
// fail no-request-for-invalid or the retry counts), without the timeouts and refused
// connections that cost a server instance each. Sixteen grades of these cost less than ten
// full ones.
var saboteurFixtures = []string{"lookup-ok", "lookup-malformed-arg", "search-malformed-arg", "refund-malformed-order-id",
	"lookup-rate-limited", "search-pages"}

// saboteurLibrary is the embedded packets with mcp-error-responses' server fixtures (and their
// translations) cut to saboteurFixtures.
func saboteurLibrary(t *testing.T) *katas.Library {
	t.Helper()
	over := fstest.MapFS{}
	for _, name := range []string{"server.json", "server.es.json", "server.ru.json"} {
		path := "mcp-error-responses/fixtures/" + name
		raw, err := fs.ReadFile(packets.FS, path)
		if err != nil {
			t.Fatal(err)
		}
		var set struct {
			Part     string            `json:"part"`
			Fixtures []json.RawMessage `json:"fixtures"`
		}
		if err := json.Unmarshal(raw, &set); err != nil {
			t.Fatal(err)
		}
		kept := set.Fixtures[:0]
		for _, f := range set.Fixtures {
			var id struct {
				ID string `json:"id"`
			}
			json.Unmarshal(f, &id)
			if slices.Contains(saboteurFixtures, id.ID) {
				kept = append(kept, f)
			}
		}
		set.Fixtures = kept
		if raw, err = json.Marshal(set); err != nil {
			t.Fatal(err)
		}
		over[path] = &fstest.MapFile{Data: raw}
	}
	lib, err := katas.Discover(overlayFS{over, packets.FS}, "embedded")
	if err != nil {
		t.Fatalf("the packets with fewer fixtures: %v", err)
	}
	return lib
}

// overlayFS serves the files of top, and every other name from base.
type overlayFS struct {
	top  fstest.MapFS
	base fs.FS
}

func (o overlayFS) Open(name string) (fs.File, error) {
	if _, ok := o.top[name]; ok {
		return o.top.Open(name)
	}
	return o.base.Open(name)
}

// TestHostileSaboteurChangesNoHonestVerdict: in a class of three graded at once, a learner whose
// server hammers the other grades' Orders APIs with requests lacking any token changes neither
// honest learner's verdict, in any of five runs; each verdict is the one the learner gets
// graded alone with the same seed. Where learner code has a network of its own, the saboteur
// reaches nothing on the machine's loopback at all: not the other grades' Orders APIs (Unix
// sockets it cannot see), nor a canary listener of the test's own, whose port it is told.
func TestHostileSaboteurChangesNoHonestVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("grades three learners several times")
	}
	lib := saboteurLibrary(t)
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
	canary, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer canary.Close()
	var reached atomic.Int64
	go func() {
		for {
			c, err := canary.Accept()
			if err != nil {
				return
			}
			reached.Add(1)
			c.Close()
		}
	}()
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
			// the test's own loopback ports: the Orders APIs where they listen on loopback, and
			// the canary
			os.WriteFile(tmp, []byte(strings.Join(ownListeningPorts(), " ")), 0o644)
			os.Rename(tmp, filepath.Join(saboteur, "ports.txt"))
		}
	}()
	for run := range 5 {
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
	if n := reached.Load(); sandbox.DetectIsolation().PrivateNetwork() && n > 0 {
		t.Errorf("the saboteur reached the canary on the machine's loopback %d times from its own network namespace", n)
	}
}

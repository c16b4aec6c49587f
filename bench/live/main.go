// Command live is the load benchmark of `kata serve`: simulated learners on loopback join a
// workshop, each holds the learner stream open as the app does and sends one event every
// interval; a board stream measures the time from an event's send to the board update that
// shows it. It reports errors, the latency's p50/p99/max, and the server's CPU and RSS (read
// from /proc of the `kata serve` process), for SQLite or PostgreSQL.
//
//	go run ./bench/live                        # 300 learners, 2 minutes, one event every 2 s, SQLite
//	go run ./bench/live -db postgres           # the same on a private PostgreSQL cluster
//	go run ./bench/live -learners 50 -duration 20s
//
// Figures are reported, not asserted. PostgreSQL comes from workshop/pgtest (fsync on).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/workshop"
	"github.com/kata-mcp/kata/workshop/board"
	"github.com/kata-mcp/kata/workshop/pgtest"
)

func main() {
	var (
		learners = flag.Int("learners", 300, "simulated learners")
		duration = flag.Duration("duration", 2*time.Minute, "how long the learners send, after all joined")
		interval = flag.Duration("interval", 2*time.Second, "time between one learner's events")
		db       = flag.String("db", "sqlite", "sqlite or postgres")
		bin      = flag.String("bin", "", "the kata binary (default: go build into a temp folder)")
		kata     = flag.String("kata", "mcp-structured-errors", "the workshop's kata")
	)
	flag.Parse()
	if err := run(*learners, *duration, *interval, *db, *bin, *kata); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(n int, duration, interval time.Duration, db, bin, kata string) error {
	tmp, err := os.MkdirTemp("", "kata-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if bin == "" {
		bin = filepath.Join(tmp, "kata")
		build := exec.Command("go", "build", "-o", bin, ".")
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("go build (run from the repository's root): %w", err)
		}
	}
	dsn := filepath.Join(tmp, "workshop.db")
	if db == "postgres" {
		c, err := pgtest.Start(pgtest.Options{Durable: true, MaxConnections: 100})
		if err != nil {
			return err
		}
		defer c.Stop()
		fmt.Println(c.Describe())
		if dsn, err = c.CreateDB(context.Background()); err != nil {
			return err
		}
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	srv := exec.Command(bin, "serve", "--headless", "--kata", kata, "--addr", "127.0.0.1:"+strconv.Itoa(port), "--db", dsn, "--max-learners", strconv.Itoa(n+10), "--seats-per-address", strconv.Itoa(n+10), "--open-layers", "0", "--open-steps", "0")
	srv.Env = append(os.Environ(), "XDG_DATA_HOME="+filepath.Join(tmp, "data"), "XDG_STATE_HOME="+filepath.Join(tmp, "state"))
	out, err := os.Create(filepath.Join(tmp, "serve.out"))
	if err != nil {
		return err
	}
	srv.Stdout, srv.Stderr = out, out
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() { srv.Process.Signal(syscall.SIGTERM); srv.Wait() }()
	joinURL, err := waitJoinLine(out.Name())
	if err != nil {
		return err
	}
	inst, err := workshop.LoadInstructor(filepath.Join(tmp, "data", "kata", "instructor.json"))
	if err != nil {
		return err
	}
	j, _ := workshop.ParseJoinURL(joinURL)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConns: 4 * n, MaxIdleConnsPerHost: 4 * n, IdleConnTimeout: time.Minute}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// Join everyone (the server rate-limits joins per address: they wait out 429s; every
	// learner comes from one loopback address, so --seats-per-address lets them all in).
	fmt.Printf("%s: %d learners join %s…\n", db, n, joinURL)
	started := time.Now()
	clients := make([]*workshop.Client, n)
	var wg sync.WaitGroup
	var joinErrs atomic.Int64
	sem := make(chan struct{}, 32)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			c := &workshop.Client{Base: j.Base, HTTP: hc}
			for {
				jr, err := c.Join(ctx, j.Code, fmt.Sprintf("learner-%03d", i))
				var ae *workshop.APIError
				if errors.As(err, &ae) && ae.Code == workshop.ErrRateLimited {
					time.Sleep(max(ae.RetryAfter, 100*time.Millisecond))
					continue
				}
				if err != nil {
					joinErrs.Add(1)
					fmt.Fprintln(os.Stderr, "join:", err)
					return
				}
				clients[i] = &workshop.Client{Base: j.Base, Token: jr.Token, HTTP: hc}
				return
			}
		}()
	}
	wg.Wait()
	fmt.Printf("joined in %.1f s (%d join errors)\n", time.Since(started).Seconds(), joinErrs.Load())

	// The board: one stream, as a projector would hold.
	lat := &latencies{sent: make([][]time.Time, n), seen: make([]int, n), names: map[string]int{}}
	for i := range n {
		lat.names[fmt.Sprintf("learner-%03d", i)] = i
	}
	boardReady := make(chan struct{})
	var streamErrs atomic.Int64
	go followBoard(ctx, &workshop.Client{Base: j.Base, Token: inst.Token}, lat, boardReady, &streamErrs)
	<-boardReady

	// Every learner holds the learner stream, as the app does.
	for _, c := range clients {
		if c == nil {
			continue
		}
		go func() {
			last := ""
			for ctx.Err() == nil {
				var err error
				last, err = c.Stream(ctx, workshop.PathStream, last, func(workshop.SSE) error { return nil })
				if ctx.Err() == nil && err != nil {
					streamErrs.Add(1)
					time.Sleep(time.Second)
				}
			}
		}()
	}

	cpu0, _ := cpuSeconds(srv.Process.Pid)
	rss := &rssSampler{pid: srv.Process.Pid}
	go rss.run(ctx)
	var sendErrs, sent atomic.Int64
	t0 := time.Now()
	end := t0.Add(duration)
	for i, c := range clients {
		if c == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(rand.Int64N(int64(interval)))) // spread the learners out
			tick := time.NewTicker(interval)
			defer tick.Stop()
			for k := 0; time.Now().Before(end); k++ {
				e := event(i, k, kata)
				lat.send(i, k)
				if _, err := c.Send(ctx, []workshop.Event{e}); err != nil {
					sendErrs.Add(1)
					fmt.Fprintln(os.Stderr, "send:", err)
				} else {
					sent.Add(1)
				}
				<-tick.C
			}
		}()
	}
	wg.Wait()
	lat.waitAll(sent.Load(), 10*time.Second)
	wall := time.Since(t0)
	cpu1, _ := cpuSeconds(srv.Process.Pid)
	cancel()

	p := lat.percentiles()
	fmt.Printf("\n%s · %d learners · %s · one event every %s each\n", db, n, duration, interval)
	fmt.Printf("  events sent      %d (%.0f/s), errors %d, stream errors %d, seen on the board %d\n", sent.Load(), float64(sent.Load())/wall.Seconds(), sendErrs.Load(), streamErrs.Load(), p.count)
	fmt.Printf("  event → board    p50 %.1f ms · p99 %.1f ms · max %.1f ms\n", ms(p.p50), ms(p.p99), ms(p.max))
	fmt.Printf("  server CPU       %.1f s over %.0f s = %.0f%% of one core\n", cpu1-cpu0, wall.Seconds(), 100*(cpu1-cpu0)/wall.Seconds())
	fmt.Printf("  server RSS       max %.0f MiB · mean %.0f MiB\n", rss.max()/(1<<20), rss.mean()/(1<<20))
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// event is learner i's k-th event: a mix of layers, answers and grade verdicts.
func event(i, k int, kata string) workshop.Event {
	e := workshop.Event{ID: fmt.Sprintf("b%d-%d", i, k), Kata: kata, At: time.Now()}
	switch k % 4 {
	case 0:
		e.Kind, e.Layer = workshop.KindLayer, katas.LayerNames[k/4%len(katas.LayerNames)]
	case 1, 2:
		e.Kind = workshop.KindAnswer
		e.Answer = &workshop.Answer{Item: fmt.Sprintf("se-%02d", 1+k%30), Chosen: []string{"b"}, Correct: (i+k)%3 != 0, ElapsedMS: 9000, Source: workshop.SourcePractice}
	default:
		e.Kind = workshop.KindVerdict
		passed := 10 + k%30
		e.Verdict = &workshop.Verdict{Status: "fail", Passed: passed, Failed: 47 - passed,
			Tests: []workshop.TestVerdict{{ID: "tools-list", Status: "pass", Step: 1}, {ID: "auth-expired", Status: "fail", Step: 3, Rules: []string{"category", "retryable"}}}}
	}
	return e
}

// latencies matches events sent to the board updates that show them.
type latencies struct {
	mu    sync.Mutex
	sent  [][]time.Time // per learner, the send time of each event k
	seen  []int         // per learner, how many of its events the board showed
	names map[string]int
	lat   []time.Duration
}

func (l *latencies) send(i, k int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.sent[i]) <= k {
		l.sent[i] = append(l.sent[i], time.Time{})
	}
	l.sent[i][k] = time.Now()
}

// shown takes a board row: every event of that learner up to its last one is now on show.
func (l *latencies) shown(r board.Row, at time.Time) {
	i, ok := l.names[r.Name]
	if !ok || !strings.HasPrefix(r.LastEvent, "b") {
		return
	}
	_, ks, ok := strings.Cut(r.LastEvent, "-")
	if !ok {
		return
	}
	k, err := strconv.Atoi(ks)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for ; l.seen[i] <= k && l.seen[i] < len(l.sent[i]); l.seen[i]++ {
		l.lat = append(l.lat, at.Sub(l.sent[i][l.seen[i]]))
	}
}

// waitAll waits until the board showed n events or the timeout passed.
func (l *latencies) waitAll(n int64, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		l.mu.Lock()
		got := int64(len(l.lat))
		l.mu.Unlock()
		if got >= n {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type pcts struct {
	count         int
	p50, p99, max time.Duration
}

func (l *latencies) percentiles() pcts {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lat) == 0 {
		return pcts{}
	}
	s := slices.Clone(l.lat)
	slices.Sort(s)
	at := func(q float64) time.Duration { return s[min(int(q*float64(len(s))), len(s)-1)] }
	return pcts{count: len(s), p50: at(0.50), p99: at(0.99), max: s[len(s)-1]}
}

// followBoard holds a board stream, reconnecting, and feeds every row it gets to l.
func followBoard(ctx context.Context, c *workshop.Client, l *latencies, ready chan struct{}, errs *atomic.Int64) {
	once := sync.Once{}
	last := ""
	for ctx.Err() == nil {
		var err error
		last, err = c.Stream(ctx, workshop.PathBoardStream, last, func(e workshop.SSE) error {
			now := time.Now()
			switch e.Event {
			case workshop.SSEBoard:
				var v board.View
				if err := json.Unmarshal([]byte(e.Data), &v); err != nil {
					return err
				}
				for _, r := range v.Rows {
					l.shown(r, now)
				}
				once.Do(func() { close(ready) })
			case workshop.SSEUpdate:
				var u struct {
					Rows []board.Row `json:"rows"`
				}
				if err := json.Unmarshal([]byte(e.Data), &u); err != nil {
					return err
				}
				for _, r := range u.Rows {
					l.shown(r, now)
				}
			}
			return nil
		})
		if ctx.Err() == nil && err != nil {
			errs.Add(1)
			fmt.Fprintln(os.Stderr, "board stream:", err)
			time.Sleep(time.Second)
		}
	}
}

// waitJoinLine waits for kata serve's join line in its output file.
func waitJoinLine(path string) (string, error) {
	re := regexp.MustCompile(`kata join (\S+) --name`)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(path)
		if m := re.FindSubmatch(b); m != nil {
			return string(m[1]), nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	b, _ := os.ReadFile(path)
	return "", fmt.Errorf("kata serve printed no join line:\n%s", b)
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// cpuSeconds is a process's user + system CPU time (/proc/PID/stat fields 14 and 15, in
// clock ticks of 1/100 s).
func cpuSeconds(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseFloat(fields[11], 64)
	st, _ := strconv.ParseFloat(fields[12], 64)
	return (ut + st) / 100, nil
}

// rssSampler reads a process's resident set size (VmRSS in /proc/PID/status) every second.
type rssSampler struct {
	pid     int
	mu      sync.Mutex
	samples []float64
}

func (r *rssSampler) run(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		if v, err := rss(r.pid); err == nil {
			r.mu.Lock()
			r.samples = append(r.samples, v)
			r.mu.Unlock()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func rss(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for %d", pid)
}

func (r *rssSampler) max() float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Max(append([]float64{0}, r.samples...))
}

func (r *rssSampler) mean() float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.samples) == 0 {
		return 0
	}
	sum := 0.0
	for _, v := range r.samples {
		sum += v
	}
	return sum / float64(len(r.samples))
}

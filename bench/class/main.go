// Command class measures `kata class grade` at scale: it builds N submissions from the
// reference workspaces (the correct and broken references of every kata, in Python, Node.js
// and Go, taken in turn: pick), grades one submission per language alone to time a single grade,
// then grades all N with -jobs workers, and prints submissions per second, the CPU-seconds a
// grade costs (the grader's and every learner process's, user + system: on a machine whose
// cores are all busy, what bounds the rate), the learner processes a grade starts, the peak
// memory of the grader and every learner process it ran (sampled), and the ratio of the
// batch's time to one grade's time × N / jobs (1.0 means the workers overlap perfectly; above
// 1, they compete for the cores). The batch grades each learner as kata class grade does, on
// as few processes as the interface allows (grader.Options.Batch); the grades alone are
// graded as kata grade does, and their CPU-seconds are printed beside. Figures are reported,
// never asserted.
//
//	go run ./bench/class -n 100 -jobs 2
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/grader/class"
	"github.com/kata-mcp/kata/grader/references"
	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/packets"
)

func main() {
	n := flag.Int("n", 100, "submissions to grade")
	jobs := flag.Int("jobs", runtime.NumCPU(), "learners graded at once")
	refs := flag.String("refs", "testdata/references", "the reference submissions")
	seed := flag.Int64("seed", 1, "every learner's seed")
	keep := flag.Bool("keep", false, "keep the class folder and its report (printed) instead of removing them")
	flag.Parse()
	if err := run(*n, *jobs, *refs, *seed, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "bench/class:", err)
		os.Exit(1)
	}
}

// reference is one reference submission of a kata and language.
type reference struct{ kata, lang, path string }

// pick takes n references in turn: each round takes the next reference of every kata in every
// language, the correct one first, so even a small n holds correct and broken submissions of
// all the katas and languages. Hostile references (they measure the grader's deadlines rather
// than its throughput) and SDK groups (their packages must be installed first,
// testdata/references/README.md) are left out.
func pick(lib *katas.Library, root string, n int) ([]reference, error) {
	var lists [][]reference
	for _, p := range lib.Packets() {
		for _, lang := range []string{"python", "node", "go"} {
			if !slices.Contains(p.Languages, lang) {
				continue
			}
			entries, err := os.ReadDir(filepath.Join(root, p.ID, lang))
			if err != nil {
				continue
			}
			var refs []reference
			for _, e := range entries {
				name := e.Name()
				if !e.IsDir() || strings.HasPrefix(name, "hostile-") || strings.HasPrefix(name, "sdk-") {
					continue
				}
				r := reference{p.ID, lang, filepath.Join(root, p.ID, lang, name)}
				if name == references.Correct {
					refs = slices.Insert(refs, 0, r)
				} else {
					refs = append(refs, r)
				}
			}
			if len(refs) > 0 {
				lists = append(lists, refs)
			}
		}
	}
	if len(lists) == 0 {
		return nil, fmt.Errorf("no references under %s", root)
	}
	var out []reference
	for i := 0; len(out) < n; i++ {
		for _, refs := range lists {
			if len(out) < n {
				out = append(out, refs[i%len(refs)])
			}
		}
	}
	return out, nil
}

func run(n, jobs int, refsRoot string, seed int64, keep bool) error {
	lib, err := katas.Discover(packets.FS, "embedded")
	if err != nil {
		return err
	}
	refs, err := pick(lib, refsRoot, n)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "kata-bench-class-")
	if err != nil {
		return err
	}
	if !keep {
		defer os.RemoveAll(tmp)
	}
	classDir := filepath.Join(tmp, "class")
	for i, r := range refs {
		p, _ := lib.Get(r.kata)
		dir := filepath.Join(classDir, fmt.Sprintf("%03d-%s-%s-%s", i, r.kata, r.lang, filepath.Base(r.path)))
		if err := references.Workspace(p, r.lang, r.path, dir); err != nil {
			return err
		}
	}
	ctx := context.Background()

	// One grade alone per language (its correct reference), after a warm-up grade of each so a
	// Go build finds its cache: the time one learner costs when nothing else runs.
	var single []time.Duration
	var singleCPU time.Duration
	for _, lang := range []string{"python", "node", "go"} {
		p, _ := lib.Get("mcp-structured-errors")
		ref := filepath.Join(refsRoot, p.ID, lang, references.Correct)
		for round := range 2 {
			start, cpu := time.Now(), cpuTime()
			if _, err := references.Grade(ctx, lib, p, lang, ref, seed); err != nil {
				return err
			}
			if round == 1 {
				single = append(single, time.Since(start))
				singleCPU += cpuTime() - cpu
			}
		}
	}
	var sum time.Duration
	for _, d := range single {
		sum += d
	}
	one := sum / time.Duration(len(single))

	learners, err := class.Discover([]string{classDir})
	if err != nil {
		return err
	}
	store, err := class.OpenStore(filepath.Join(tmp, "report", class.StoreFile))
	if err != nil {
		return err
	}
	defer store.Close()
	var peak atomic.Int64
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Add(1)
	go func() {
		defer sampler.Done()
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			if m := treeRSS(os.Getpid()); m > peak.Load() {
				peak.Store(m)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	start, cpu := time.Now(), cpuTime()
	b, err := class.Run(ctx, lib, store, learners, class.Options{NoIsolation: true, Jobs: jobs, Seed: seed, SeedSet: true})
	wall, used := time.Since(start), cpuTime()-cpu
	close(stop)
	sampler.Wait()
	if err != nil {
		return err
	}
	status := map[string]int{}
	var graded []time.Duration
	procs := 0
	for _, r := range b.Results {
		status[r.Report.Status]++
		graded = append(graded, r.Duration)
		procs += r.Report.Timings.Processes
	}
	slices.Sort(graded)
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	ideal := time.Duration(float64(one) * float64(n) / float64(jobs))
	fmt.Printf("submissions         %d (%d pass, %d fail, %d cannot be graded), %d jobs, %d cores\n", n, status[grader.StatusPass], status[grader.StatusFail], status[grader.StatusError], jobs, runtime.NumCPU())
	fmt.Printf("batch               %.1f s, %.2f submissions/s\n", wall.Seconds(), float64(n)/wall.Seconds())
	fmt.Printf("CPU per grade       %.2f CPU-s in the batch (%.0f s of CPU over %.1f s: %.0f %% of %d cores), %.1f learner processes a grade\n",
		used.Seconds()/float64(n), used.Seconds(), wall.Seconds(), 100*used.Seconds()/wall.Seconds()/float64(runtime.NumCPU()), runtime.NumCPU(), float64(procs)/float64(n))
	fmt.Printf("one grade alone     %.2f s (mean of %s), %.2f CPU-s\n", one.Seconds(), durations(single), singleCPU.Seconds()/float64(len(single)))
	fmt.Printf("per learner         median %.2f s, slowest %.2f s (in the batch)\n", graded[len(graded)/2].Seconds(), graded[len(graded)-1].Seconds())
	fmt.Printf("ratio               %.2f = batch / (one grade × %d / %d jobs = %.1f s)\n", wall.Seconds()/ideal.Seconds(), n, jobs, ideal.Seconds())
	fmt.Printf("peak memory         %.0f MiB (the grader and every learner process, sampled every 200 ms); the grader alone %.0f MiB\n", float64(peak.Load())/(1<<20), float64(ru.Maxrss)/1024)
	fmt.Printf("1,000 learners      about %.0f s at this rate (%.1f min)\n", wall.Seconds()*1000/float64(n), wall.Minutes()*1000/float64(n))
	if keep {
		fmt.Printf("kept                %s\n", tmp)
	}
	return nil
}

// cpuTime is the CPU time, user and system, of this process and of every child process it has
// waited for (which include their own waited-for children: the sandboxes and the learner
// processes in them).
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	t := func(ru syscall.Rusage) time.Duration {
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return t(self) + t(children)
}

// durations lists ds in seconds.
func durations(ds []time.Duration) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, fmt.Sprintf("%.2f", d.Seconds()))
	}
	return strings.Join(parts, ", ") + " s for python, node, go"
}

// treeRSS sums the resident memory of pid and all its descendants (Linux /proc; 0 elsewhere).
func treeRSS(pid int) int64 {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp := ppid(p); pp > 0 {
			children[pp] = append(children[pp], p)
		}
	}
	var total int64
	page := int64(os.Getpagesize())
	for stack := []int{pid}; len(stack) > 0; {
		p := stack[len(stack)-1]
		stack = append(stack[:len(stack)-1], children[p]...)
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "statm"))
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 1 {
			rss, _ := strconv.ParseInt(f[1], 10, 64)
			total += rss * page
		}
	}
	return total
}

// ppid reads a process's parent from /proc/<pid>/status.
func ppid(pid int) int {
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "PPid:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

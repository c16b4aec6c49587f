package katas

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/kata-mcp/kata/packets"
)

// Fuzz targets for the packet parsers and the contract, fixture and asset loaders. Run one at a
// time, e.g.
//
//	go test ./katas/ -run '^$' -fuzz FuzzExam -fuzztime 10m -parallel 1
//
// The seed corpus is the shipped packets' own files (and the test packet's); inputs that once
// crashed a target are kept in testdata/fuzz/<Target>/. Malformed input must give problems
// with file and line, never a panic.

// watchdog panics when one input keeps a target busy for longer than a few seconds, so the
// fuzzer records a hang as a crash with its input instead of stalling. Call as
// defer watchdog()().
func watchdog() func() {
	t := time.AfterFunc(20*time.Second, func() { panic("fuzz input took over 20 s: a hang") })
	return func() { t.Stop() }
}

// seedFiles returns the contents of every file named name in the shipped packets and the
// test packet.
func seedFiles(f *testing.F, name string) [][]byte {
	f.Helper()
	var out [][]byte
	for _, fsys := range []fs.FS{packets.FS, os.DirFS("testdata/packets")} {
		fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (path.Base(p) == name || strings.HasSuffix(p, "/"+name)) {
				if b, err := fs.ReadFile(fsys, p); err == nil {
					out = append(out, b)
				}
			}
			return nil
		})
	}
	if len(out) == 0 {
		f.Fatalf("no seed file %s", name)
	}
	return out
}

// seedSections returns the Markdown seed files named name cut into small pieces, each the
// file's first line and one level-2 section (or, for a table, its header and a few rows):
// mutating a 35 KB exam.md makes the fuzzer spend its time minimising, a 1 KB item does not.
func seedSections(f *testing.F, name string) [][]byte {
	f.Helper()
	var out [][]byte
	for _, b := range seedFiles(f, name) {
		first, rest, _ := bytes.Cut(b, []byte("\n"))
		head := append(append([]byte{}, first...), '\n')
		for _, sec := range bytes.Split(rest, []byte("\n## ")) {
			lines := bytes.SplitAfter(sec, []byte("\n"))
			// Tables: a header and separator, then rows in groups of four.
			if t := tableStart(lines); t >= 0 && len(lines)-t > 6 {
				hdr := bytes.Join(lines[:t+2], nil)
				for i := t + 2; i < len(lines); i += 4 {
					j := min(i+4, len(lines))
					out = append(out, append(append(append([]byte{}, head...), hdr...), bytes.Join(lines[i:j], nil)...))
				}
				continue
			}
			out = append(out, append(append(append([]byte{}, head...), "## "...), sec...))
		}
	}
	return out
}

// tableStart returns the index of the first line that starts a GFM table, or -1.
func tableStart(lines [][]byte) int {
	for i := 0; i+1 < len(lines); i++ {
		if bytes.HasPrefix(lines[i], []byte("|")) && bytes.HasPrefix(lines[i+1], []byte("| ---")) {
			return i
		}
	}
	return -1
}

// checkProblems asserts that a parser's error is Problems whose every member names file and a
// line inside src (or 0).
func checkProblems(t *testing.T, file string, src []byte, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var ps Problems
	if !errors.As(err, &ps) || len(ps) == 0 {
		t.Fatalf("error %v is not a non-empty Problems", err)
	}
	last := bytes.Count(src, []byte("\n")) + 1
	for _, p := range ps {
		if p.File != file || p.Line < 0 || p.Line > last || p.Msg == "" {
			t.Fatalf("bad problem %#v (file %s, %d lines)", p, file, last)
		}
	}
}

func FuzzExam(f *testing.F) {
	for _, b := range seedSections(f, "exam.md") {
		f.Add(b)
	}
	f.Add([]byte("## `x-1` T\n\nScenario: customer-support\nChoose: 2\n\nQ?\n\n- [x] A\n  > a\n- [x] B\n  > b\n- [ ] C\n  > c\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		defer watchdog()()
		items, err := ParseExam("exam.md", src)
		checkProblems(t, "exam.md", src, err)
		if err != nil {
			return
		}
		for _, it := range items {
			if it.ID == "" || it.Scenario == "" || it.Stem == "" || len(it.Options) < 2 || len(it.Keys()) != it.Choose {
				t.Fatalf("accepted a malformed item: %+v", it)
			}
			for _, o := range it.Options {
				if o.Rationale == "" || o.Text == "" {
					t.Fatalf("accepted option without text or rationale: %+v", o)
				}
			}
		}
	})
}

func FuzzTraps(f *testing.F) {
	for _, b := range seedSections(f, "traps.md") {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		defer watchdog()()
		tables, err := ParseTraps("traps.md", src)
		checkProblems(t, "traps.md", src, err)
		if err != nil {
			return
		}
		for _, tt := range tables {
			if len(tt.Rows) == 0 {
				t.Fatalf("accepted a table without rows: %+v", tt)
			}
			for _, r := range tt.Rows {
				if r.Trap == "" || r.WhyItFails == "" || r.Correct == "" {
					t.Fatalf("accepted a row with an empty cell: %+v", r)
				}
			}
		}
	})
}

func FuzzTask(f *testing.F) {
	for _, b := range seedSections(f, "task.md") {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		defer watchdog()()
		task, err := ParseTask("task.md", src)
		checkProblems(t, "task.md", src, err)
		if err != nil {
			return
		}
		if task.Title == "" || len(task.Steps) == 0 {
			t.Fatalf("accepted a task without title or steps: %+v", task)
		}
		for i, s := range task.Steps {
			if s.Number != i+1 {
				t.Fatalf("step %d numbered %d", i+1, s.Number)
			}
		}
	})
}

func FuzzCoverage(f *testing.F) {
	for _, b := range seedSections(f, "coverage.md") {
		f.Add(b)
	}
	f.Add([]byte("| Seed | Line | Fact | Covered by |\n| --- | --- | --- | --- |\n| s.txt | 3 | f | `x-1`, trap:a-b#2, task:1 |\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		defer watchdog()()
		rows, err := ParseCoverage("coverage.md", src)
		checkProblems(t, "coverage.md", src, err)
		if err != nil {
			return
		}
		for _, r := range rows {
			if r.Seed == "" || r.SeedLine < 1 || r.Fact == "" || len(r.Refs) == 0 {
				t.Fatalf("accepted a malformed row: %+v", r)
			}
		}
		// The references are checked against a packet without panicking either way.
		var ps Problems
		checkRefs("coverage.md", rows, &Packet{}, &ps)
	})
}

// miniPacket returns the test packet as an in-memory file system, for targets and tests that
// replace or add files.
func miniPacket(f testing.TB) fstest.MapFS {
	f.Helper()
	m := fstest.MapFS{}
	base := os.DirFS("testdata/packets")
	err := fs.WalkDir(base, "mini-kata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(base, p)
		m[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	return m
}

// FuzzManifest fuzzes packet.json and its contract: the manifest parser alone, then the whole
// packet loader with the fuzzed manifest in place of the test packet's (layers, contract
// categories from an asset, fixtures checked against the contract).
func FuzzManifest(f *testing.F) {
	for _, b := range seedFiles(f, "packet.json") {
		f.Add(b)
	}
	mini := miniPacket(f)
	asset, err := fs.ReadFile(packets.FS, "mcp-engineering/assets/typed-error.json")
	if err != nil {
		f.Fatal(err)
	}
	mini["mini-kata/assets/typed-error.json"] = &fstest.MapFile{Data: asset}
	f.Fuzz(func(t *testing.T, src []byte) {
		defer watchdog()()
		m, err := ParseManifest("packet.json", src)
		checkProblems(t, "packet.json", src, err)
		if err == nil && (m.ID == "" || len(m.Layers) == 0) {
			t.Fatalf("accepted a manifest without id or layers: %+v", m)
		}
		fsys := fstest.MapFS{}
		for k, v := range mini {
			fsys[k] = v
		}
		fsys["mini-kata/packet.json"] = &fstest.MapFile{Data: src}
		p, err := LoadPacket(fsys, "mini-kata", "fuzz")
		if err == nil && p == nil {
			t.Fatal("no packet and no error")
		}
		var pe *ParseError
		if err != nil && !errors.As(err, &pe) {
			t.Fatalf("error %v carries no *ParseError", err)
		}
	})
}

// FuzzFixtures feeds the same bytes to the three fixture loaders (server fixtures, client
// scenarios, config rules), checked against a shipped packet's contract.
func FuzzFixtures(f *testing.F) {
	for _, name := range []string{"server.json", "client.json", "config.json"} {
		for _, b := range seedFiles(f, name) {
			f.Add(b)
		}
	}
	src, err := fs.ReadFile(packets.FS, "mcp-structured-errors/packet.json")
	if err != nil {
		f.Fatal(err)
	}
	m, err := ParseManifest("packet.json", src)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		defer watchdog()()
		set, err := ParseFixtures("server.json", src, m)
		checkProblems(t, "server.json", src, err)
		if err == nil {
			for _, fx := range set.Fixtures {
				if fx.ID == "" || fx.Task < 1 {
					t.Fatalf("accepted a fixture without id or task: %+v", fx)
				}
			}
		}
		sc, err := ParseScenarios("client.json", src, m)
		checkProblems(t, "client.json", src, err)
		if err == nil && len(sc.Scenarios) == 0 {
			t.Fatal("accepted a client set without scenarios")
		}
		cs, err := ParseConfigRules("config.json", src)
		checkProblems(t, "config.json", src, err)
		if err == nil && len(cs.Rules) == 0 {
			t.Fatal("accepted a config set without rules")
		}
	})
}

// FuzzAsset fuzzes a data asset (assets/*.json): the asset reader, its table rendering, and
// the two readers that take contract categories and a client policy from it.
func FuzzAsset(f *testing.F) {
	for _, name := range []string{"typed-error.json", "client-retry.json", "scope.json", "secrets.json", "evidence.json"} {
		for _, b := range seedFiles(f, name) {
			f.Add(b)
		}
	}
	f.Add([]byte(`[{"rule": "categories", "value": "auth false, rate_limit"}]`))
	cats := map[string]bool{"auth": false, "rate_limit": true, "transient": true, "fatal": false}
	f.Fuzz(func(t *testing.T, src []byte) {
		defer watchdog()()
		fsys := fstest.MapFS{"p/assets/a.json": &fstest.MapFile{Data: src}}
		a, err := ReadAsset(fsys, "p", "assets/a.json")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "p/assets/a.json" {
				t.Fatalf("error %v does not name the asset", err)
			}
			return
		}
		if len(a.Rows) == 0 {
			t.Fatal("accepted an empty asset")
		}
		md := a.Markdown()
		if strings.Count(md, "\n") != len(a.Rows)+2 {
			t.Fatalf("table of %d rows has %d lines:\n%s", len(a.Rows), strings.Count(md, "\n"), md)
		}
		categoriesFromAsset(a, "p/assets/a.json")
		var p Policy
		policyFromAsset(a, "p/assets/a.json", &p, cats)
	})
}

// FuzzLayer fuzzes a layer file: YAML front matter (as subagent definitions have) and asset
// directives, as LoadLayer reads them.
func FuzzLayer(f *testing.F) {
	for _, b := range seedFiles(f, "reviewer.md") {
		f.Add(b)
	}
	fs.WalkDir(packets.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && (strings.Contains(p, "/agents/") || strings.Contains(p, "/knowledge/")) && strings.HasSuffix(p, ".md") {
			b, _ := fs.ReadFile(packets.FS, p)
			f.Add(b)
		}
		return nil
	})
	f.Add([]byte("---\nname: x\n---\n<!-- kata:asset assets/a.json -->\n<!-- kata:asset ../x -->\n"))
	asset := []byte(`[{"errorCategory": "auth", "isRetryable": false}]`)
	f.Fuzz(func(t *testing.T, src []byte) {
		defer watchdog()()
		fsys := fstest.MapFS{
			"p/packet.json":     &fstest.MapFile{Data: []byte("{}")},
			"p/assets/a.json":   &fstest.MapFile{Data: asset},
			"p/knowledge/01.md": &fstest.MapFile{Data: src},
		}
		md, err := expandAssets(fsys, "p", "p/knowledge/01.md", src)
		if err == nil {
			frontMatterAsCode(md)
		} else if !strings.HasPrefix(err.Error(), "p/knowledge/01.md:") {
			t.Fatalf("error %v does not name the layer file and line", err)
		}
		frontMatterAsCode(string(src))
	})
}

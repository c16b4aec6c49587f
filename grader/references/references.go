// Package references builds graded workspaces from reference submissions — a kata's template,
// then its correct reference, then one broken reference's fault (testdata/references/README.md)
// — and checks a packet's references: the untouched template fails, the correct one passes.
// The grader's tests, `kata validate --references` and `kata mcp`'s tests all build their
// workspaces here, so a reference means the same thing to each. A reference on an SDK needs
// its dependencies installed before it is graded, as a learner installs them: Install.
package references

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/grader/internal/faultdiff"
	"github.com/kata-mcp/kata/katas"
)

// Seed is the fixtures' seed for checking references, so a run repeats exactly.
const Seed = 1

// Seeds are the seeds a correct reference, and a broken one in Python, is graded with unless
// its expect.json names others: a verdict depends on the submission only
// (docs/grading.md#seed), so each must fail the same tests, breaking the same rules, under each.
// A broken reference in Node or Go, the port of a Python one's fault, is graded once, under
// seed 2 (Node) or 3 (Go): each fault is still seen under three seeds, at a third of the
// cost. A hostile reference, which tests processes rather than verdicts, is graded once,
// under Seed. SeedsFor applies this.
var Seeds = []int64{1, 2, 3}

// MaxSeeds is the most seeds a reference's expect.json may name: each seed is a whole grading
// of real learner code, and what varies with the seed (values, never coverage) is covered by
// the cheaper tests that draw many seeds without grading.
const MaxSeeds = 3

// Correct is the name of the folder of a kata and language's correct reference.
const Correct = "correct"

// Expectation is a reference's expect.json: the exit code a grade must give, the ids of
// exactly the tests that must fail, for exit 2 a phrase the message must contain, a phrase
// the message of every failing test must contain (a hint's words, docs/grading.md#sdk-hints),
// the seeds to grade with (default Seeds), and optionally the rules broken and a note's words.
type Expectation struct {
	Exit    int      `json:"exit"`
	Fail    []string `json:"fail"`
	Message string   `json:"message"`
	Hint    string   `json:"hint"`
	Seeds   []int64  `json:"seeds"`
	// Rules, when given, is exactly the set of rules the failing tests break, whatever the
	// seed: a reference that breaks one rule names it, and breaking another is an error.
	Rules []string `json:"rules"`
	// Note, when given, is a phrase the note of some passing test must contain (a reference
	// that passes with a note, docs/grading.md#tool-results).
	Note string `json:"note"`
}

// ReadExpectation reads ref/expect.json; Fail comes back sorted, and Seeds never empty
// (SeedsFor's choice when the file names none).
func ReadExpectation(ref string) (Expectation, error) {
	var e Expectation
	raw, err := os.ReadFile(filepath.Join(ref, "expect.json"))
	if err != nil {
		return e, fmt.Errorf("%s has no expect.json: every reference says which tests it must fail", ref)
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return e, fmt.Errorf("%s/expect.json: %w", ref, err)
	}
	slices.Sort(e.Fail)
	slices.Sort(e.Rules)
	if len(e.Seeds) > MaxSeeds {
		return e, fmt.Errorf("%s/expect.json: %d seeds; a reference is graded under at most %d (a seed varies values, never coverage)", ref, len(e.Seeds), MaxSeeds)
	}
	if len(e.Seeds) == 0 {
		e.Seeds = SeedsFor(ref)
	}
	return e, nil
}

// SeedsFor is the seeds the reference folder ref is graded with when its expect.json names
// none (see Seeds): every seed of Seeds for a correct reference and a broken one in Python,
// seed 2 for a broken one in Node, seed 3 in Go, Seed for a hostile one.
func SeedsFor(ref string) []int64 {
	name := filepath.Base(ref)
	lang := ""
	for dir := filepath.Dir(ref); dir != "." && dir != string(filepath.Separator) && lang == ""; dir = filepath.Dir(dir) {
		switch b := filepath.Base(dir); b {
		case "python", "node", "go":
			lang = b
		}
	}
	switch {
	case name == Correct:
		return slices.Clone(Seeds)
	case strings.HasPrefix(name, "hostile-"):
		return []int64{Seed}
	case lang == "node":
		return []int64{2}
	case lang == "go":
		return []int64{3}
	}
	return slices.Clone(Seeds)
}

// Workspace writes p's template for lang into dir (which must not exist or be empty) and lays
// the reference folder ref over it, on top of the references it builds on (Base): each one's
// files, then its fault.diff, which must apply exactly. README.md, expect.json, fault.diff,
// node_modules and Python byte-code caches are never copied. An empty ref leaves the untouched
// template.
func Workspace(p *katas.Packet, lang, ref, dir string) error {
	if err := p.Init(dir, lang); err != nil {
		return err
	}
	if ref == "" {
		return nil
	}
	return lay(dir, ref)
}

// Base is the reference that ref builds on, or "" when it builds on the template alone: for a
// broken reference, the correct/ beside it; for a correct/ inside a group of its own
// (<lang>/sdk-typescript/correct), the correct/ beside the group, so an SDK's server reference
// keeps the language's correct client. A reference folder's name says which it is.
func Base(ref string) string {
	parent := filepath.Dir(ref)
	if filepath.Base(ref) == Correct {
		parent = filepath.Dir(parent)
	}
	base := filepath.Join(parent, Correct)
	if st, err := os.Stat(base); err != nil || !st.IsDir() || filepath.Clean(base) == filepath.Clean(ref) {
		return ""
	}
	return base
}

// lay writes ref's base (recursively), then ref's files, then applies ref's fault.diff.
func lay(dir, ref string) error {
	if base := Base(ref); base != "" {
		if err := lay(dir, base); err != nil {
			return err
		}
	}
	if err := overlay(dir, ref); err != nil {
		return err
	}
	fault := filepath.Join(ref, "fault.diff")
	src, err := os.ReadFile(fault)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := faultdiff.Apply(dir, string(src)); err != nil {
		return fmt.Errorf("%s: %w", fault, err)
	}
	return nil
}

// overlay copies the files of ref into dir, all but a reference's own notes and caches.
func overlay(dir, ref string) error {
	return filepath.WalkDir(ref, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "__pycache__" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(ref, path)
		if err != nil {
			return err
		}
		if rel == "README.md" || rel == "expect.json" || rel == "fault.diff" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}

// Grade builds the workspace of Workspace in a temporary folder, grades it with seed, and
// removes the folder.
func Grade(ctx context.Context, lib *katas.Library, p *katas.Packet, lang, ref string, seed int64) (*grader.Report, error) {
	tmp, err := os.MkdirTemp("", "kata-reference-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "ws")
	if err := Workspace(p, lang, ref, dir); err != nil {
		return nil, err
	}
	return grader.Grade(ctx, lib, dir, grader.Options{Seed: seed, SeedSet: true}), nil
}

// Check grades, for every problem-free graded packet of all and each of its languages, the
// untouched template (it must fail: exit 1) and refs/<kata>/<lang>/correct laid over it (it must
// pass: exit 0), grading with lib. Each miss is a problem naming the template or reference
// folder; counts gives their number per packet id. A progress line per grade goes to w, and so
// does a line for each graded packet skipped for its problems or shadowed in lib by another.
func Check(ctx context.Context, w io.Writer, lib *katas.Library, all []katas.Validation, refs string) (ps katas.Problems, counts map[string]int, err error) {
	if st, err := os.Stat(refs); err != nil || !st.IsDir() {
		return nil, nil, fmt.Errorf("--references %s: not a folder", refs)
	}
	counts = map[string]int{}
	for _, v := range all {
		p := v.Packet
		if p == nil || len(p.Graded) == 0 {
			continue
		}
		if len(v.Problems) > 0 {
			fmt.Fprintf(w, "references: %-32s not graded: the packet has %d problem(s); fix them first\n", p.ID, len(v.Problems))
			continue
		}
		q, ok := lib.Get(p.ID)
		if !ok || q.Source != p.Source {
			continue
		}
		p = q // the library's packet: the one the grader reads, with the built-in shims
		before := len(ps)
		for _, lang := range p.Languages {
			if err := ctx.Err(); err != nil {
				return ps, counts, err
			}
			where := p.ID + "/" + lang
			tmpl := filepath.Join(p.Source, p.ID, "templates", lang)
			if p.Source == "embedded" {
				tmpl = filepath.Join("packets", p.ID, "templates", lang)
			}
			rep, err := Grade(ctx, lib, p, lang, "", Seed)
			switch {
			case err != nil:
				ps = append(ps, &katas.ParseError{File: tmpl, Msg: err.Error()})
			case rep.ExitCode() != 1:
				ps = append(ps, &katas.ParseError{File: tmpl, Msg: fmt.Sprintf("the untouched template must fail grading (exit 1); it gave exit %d%s", rep.ExitCode(), Note(rep))})
			default:
				pass, _, _ := rep.Counts()
				fmt.Fprintf(w, "references: %-32s template fails (%d/%d tests pass)\n", where, pass, len(rep.Tests))
			}
			ref := filepath.Join(refs, p.ID, lang, Correct)
			if st, err := os.Stat(ref); err != nil || !st.IsDir() {
				ps = append(ps, &katas.ParseError{File: ref, Msg: "no reference solution: every graded kata and language has one (a workspace that passes, laid over the template)"})
				continue
			}
			rep, err = Grade(ctx, lib, p, lang, ref, Seed)
			switch {
			case err != nil:
				ps = append(ps, &katas.ParseError{File: ref, Msg: err.Error()})
			case rep.ExitCode() != 0:
				ps = append(ps, &katas.ParseError{File: ref, Msg: fmt.Sprintf("the reference solution must pass grading (exit 0); it gave exit %d%s", rep.ExitCode(), Note(rep))})
			default:
				pass, _, _ := rep.Counts()
				fmt.Fprintf(w, "references: %-32s correct passes (%d/%d tests pass)\n", where, pass, len(rep.Tests))
			}
		}
		counts[p.ID] += len(ps) - before
	}
	return ps, counts, nil
}

// Note sums up why a report did not have the wanted exit code: its message, or the ids of the
// tests that did not pass.
func Note(rep *grader.Report) string {
	if rep.Message != "" {
		return ": " + rep.Message
	}
	ids := Failing(rep)
	if len(ids) == 0 {
		return ""
	}
	return "; not passing: " + strings.Join(ids, ", ")
}

// Failing lists the ids of the report's tests that did not pass, sorted.
func Failing(rep *grader.Report) []string {
	var ids []string
	for _, t := range rep.Tests {
		if t.Status != grader.StatusPass {
			ids = append(ids, t.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

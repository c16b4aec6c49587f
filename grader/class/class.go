// Package class grades a class of workspaces and reports on it, for instructor-led workshops.
//
// Every learner of a batch is graded with the same seed, by parallel workers that each run
// one grader.Grade (its own processes, its own Orders API port). Each result goes into a class
// results store (SQLite, results.db) the moment it is ready, so a batch that is killed loses
// nothing: run again, and only the learners without a result, or whose folder changed since
// it, are graded. The class report (text, CSV, JSON, one self-contained HTML file) gives each
// learner's points per task step and the rules the class fails most, which is what the
// instructor teaches next. The package also exports a kata as a Gradescope autograder and as a
// GitHub Classroom starter repository.
package class

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kata-mcp/kata/grader"
	"github.com/kata-mcp/kata/grader/autograder"
	"github.com/kata-mcp/kata/grader/sandbox"
	"github.com/kata-mcp/kata/internal/i18n"
)

// Isolation reports whether the grader confines the learner processes it runs (their files,
// network and process count; sandbox.DetectIsolation, docs/grading.md#sandbox), and when it does
// not, why. A class is strangers' code, so Run refuses to grade one without isolation unless
// Options.NoIsolation is set. A variable so that tests can stand in for the machine.
var Isolation = func() (isolated bool, why string) {
	iso := sandbox.DetectIsolation()
	return iso.Isolated(), iso.Reason
}

// Learner is one submission of a class: a workspace folder and the name reports show.
type Learner struct {
	// Name is the folder's name, with as many parent folders as it takes to tell two learners
	// apart ("a/alice" and "b/alice").
	Name string `json:"name"`
	// Dir is the workspace's absolute path, symbolic links resolved: the learner's folder, or
	// the one folder inside it that holds kata.json (autograder.FindWorkspace).
	Dir string `json:"dir"`
	// Given is the folder as given or listed, when a symbolic link makes it differ from Dir's
	// folder (Scrubber hides both).
	Given string `json:"-"`
}

// Discover lists the learners of the folders given: a folder that holds kata.json is one
// learner's workspace; any other folder is a class, each of whose subfolders (but hidden ones
// and the folders in skip) is a learner, workspace or not, so an empty or broken submission
// gets a row of its own. A class's subfolder may be a symbolic link to a folder (a class
// folder of links to where each learner's work is): the learner is the folder it points to,
// which is all the grader's sandbox sees. A learner folder without kata.json whose one
// workspace is a folder or two down ("zoe/my-work/kata.json") is graded there, as the
// Gradescope autograder finds it. Learners come back sorted by name. A path that is not a
// folder, and a learner folder inside another one, are errors.
func Discover(paths []string, skip ...string) ([]Learner, error) {
	var skipAbs []string
	for _, s := range skip {
		if abs, err := filepath.Abs(s); err == nil {
			skipAbs = append(skipAbs, abs)
			if real, err := filepath.EvalSymlinks(abs); err == nil {
				skipAbs = append(skipAbs, real)
			}
		}
	}
	// named are the folders as given or listed (they name the learners), real the folders
	// they are, symbolic links resolved.
	type folder struct{ named, real string }
	var dirs []folder
	add := func(named string) error {
		real, err := filepath.EvalSymlinks(named)
		if err != nil {
			return fmt.Errorf("%s: %w", named, err)
		}
		if slices.Contains(skipAbs, real) {
			return nil
		}
		if ws, ok := autograder.FindWorkspace(real); ok {
			real = ws
		}
		dirs = append(dirs, folder{named, real})
		return nil
	}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		st, err := os.Stat(abs)
		if err != nil || !st.IsDir() {
			return nil, i18n.Err("class.cli.not_a_folder", "Path", p)
		}
		if isFile(filepath.Join(abs, "kata.json")) {
			if err := add(abs); err != nil {
				return nil, err
			}
			continue
		}
		entries, err := os.ReadDir(abs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		n := 0
		for _, e := range entries {
			dir := filepath.Join(abs, e.Name())
			if strings.HasPrefix(e.Name(), ".") || slices.Contains(skipAbs, dir) {
				continue
			}
			if !e.IsDir() {
				// a symbolic link to a folder is a learner; to anything else, nothing
				if e.Type()&fs.ModeSymlink == 0 {
					continue
				}
				if st, err := os.Stat(dir); err != nil || !st.IsDir() {
					continue
				}
			}
			if err := add(dir); err != nil {
				return nil, err
			}
			n++
		}
		if n == 0 {
			return nil, i18n.Err("class.cli.no_learners_in", "Path", p)
		}
	}
	slices.SortFunc(dirs, func(a, b folder) int { return strings.Compare(a.real, b.real) })
	dirs = slices.CompactFunc(dirs, func(a, b folder) bool { return a.real == b.real })
	for i := 1; i < len(dirs); i++ {
		for j := 0; j < i; j++ {
			if strings.HasPrefix(dirs[i].real, dirs[j].real+string(filepath.Separator)) || dirs[j].real == "/" {
				return nil, i18n.Err("class.cli.nested", "Inner", dirs[i].named, "Outer", dirs[j].named)
			}
		}
	}
	if len(dirs) == 0 {
		return nil, i18n.Err("class.cli.no_learners")
	}
	named := make([]string, len(dirs))
	for i, d := range dirs {
		named[i] = d.named
	}
	learners := make([]Learner, len(dirs))
	names := uniqueNames(named)
	for i, d := range dirs {
		learners[i] = Learner{Name: names[i], Dir: d.real}
		if d.named != d.real {
			learners[i].Given = d.named
		}
	}
	slices.SortFunc(learners, func(a, b Learner) int { return strings.Compare(a.Name, b.Name) })
	return learners, nil
}

// uniqueNames names each folder by its last path element, adding parent folders to the names
// that would otherwise be the same.
func uniqueNames(dirs []string) []string {
	depth := make([]int, len(dirs))
	name := func(i int) string {
		parts := strings.Split(dirs[i], string(filepath.Separator))
		k := max(len(parts)-1-depth[i], 0)
		return strings.Join(parts[k:], "/")
	}
	for {
		seen := map[string][]int{}
		for i := range dirs {
			seen[name(i)] = append(seen[name(i)], i)
		}
		clash := false
		for _, is := range seen {
			if len(is) > 1 {
				for _, i := range is {
					depth[i]++
				}
				clash = true
			}
		}
		if !clash {
			break
		}
	}
	out := make([]string, len(dirs))
	for i := range dirs {
		out[i] = strings.TrimPrefix(name(i), "/")
	}
	return out
}

// isFile reports whether path is a regular file.
func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// NamedKata is the kata a learner's kata.json names, or "" when it names none (no
// kata.json, or one that cannot be read: the grader says what is wrong with it).
func NamedKata(dir string) string {
	kc, err := grader.LoadKataConfig(dir)
	if err != nil {
		return ""
	}
	return kc.Kata
}

// Assignment returns the class's kata: want when it is set, else the kata most learners'
// kata.json name (of a tie, the first in alphabetical order); and how many learners name
// it. kata is "" when no learner names one.
func Assignment(learners []Learner, want string) (kata string, naming int) {
	counts := map[string]int{}
	for _, l := range learners {
		if k := NamedKata(l.Dir); k != "" {
			counts[k]++
		}
	}
	if want != "" {
		return want, counts[want]
	}
	for k, n := range counts {
		if n > naming || (n == naming && k < kata) {
			kata, naming = k, n
		}
	}
	return kata, naming
}

// wrongKata is the report of a learner whose workspace is for another kata than the class's:
// the learner cannot be graded for the class's kata, and scores 0 of its points.
func wrongKata(l Learner, has, want string, seed int64) *grader.Report {
	why := i18n.M("class.wrong_kata", "Has", has, "Want", want)
	rep := errorReport(l, seed, why.English())
	rep.Kata, rep.Why = want, &why
	return rep
}

package class

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/kata-mcp/kata/grader"
)

// minScrubbedName is the shortest folder name Scrubber replaces where it stands as a word of
// its own: a shorter one ("a", "an") is a word of the grader's own messages too.
const minScrubbedName = 3

// Scrubber returns what an anonymized report does to a learner's text: the learner's folder
// (as given and as resolved), each folder name of its Name of minScrubbedName characters or
// more where it stands as a word, and the home folder of the user running kata become the
// pseudonym (the home folder "~"). A traceback's "/home/t/class/alice/server.py" becomes
// "learner-xxxx/server.py".
func Scrubber(l Learner, pseudonym string) func(string) string {
	var pairs []string
	for _, dir := range []string{l.Dir, l.Given} {
		if dir != "" && dir != "/" {
			pairs = append(pairs, dir, pseudonym)
		}
	}
	var words []string
	for _, part := range strings.Split(l.Name, "/") {
		if len([]rune(part)) >= minScrubbedName {
			words = append(words, regexp.QuoteMeta(part))
		}
	}
	home, _ := os.UserHomeDir()
	if home != "" && home != "/" {
		pairs = append(pairs, home, "~")
	}
	var wordRE *regexp.Regexp
	if len(words) > 0 {
		wordRE = regexp.MustCompile(`(^|[^\p{L}\p{N}_])(` + strings.Join(words, "|") + `)($|[^\p{L}\p{N}_])`)
	}
	// longest first, so a folder is replaced before the home folder it is in
	repl := strings.NewReplacer(sorted(pairs)...)
	return func(s string) string {
		if s == "" {
			return s
		}
		s = repl.Replace(s)
		if wordRE != nil {
			// twice: a match consumes the separator after it, which may start the next one
			for range 2 {
				s = wordRE.ReplaceAllString(s, "${1}"+pseudonym+"${3}")
			}
		}
		return s
	}
}

// pairs2 views old, new pairs as [2]string (for sorting).
func pairs2(p []string) [][2]string {
	out := make([][2]string, 0, len(p)/2)
	for i := 0; i+1 < len(p); i += 2 {
		out = append(out, [2]string{p[i], p[i+1]})
	}
	return out
}

// sorted is old, new pairs, the longest old first.
func sorted(p []string) []string {
	ps := pairs2(p)
	slices.SortStableFunc(ps, func(a, b [2]string) int { return len(b[0]) - len(a[0]) })
	var out []string
	for _, x := range ps {
		out = append(out, x[0], x[1])
	}
	return out
}

// scrubReport returns a copy of r with every text a learner's process or folder can reach
// (the message, the workspace, each test's message, note and stderr tail) passed through
// scrub.
func scrubReport(r *grader.Report, scrub func(string) string) *grader.Report {
	out := *r
	out.Message, out.Workspace = scrub(r.Message), scrub(r.Workspace)
	out.Tests = slices.Clone(r.Tests)
	for i := range out.Tests {
		t := &out.Tests[i]
		t.Message, t.Note, t.Output = scrub(t.Message), scrub(t.Note), scrub(t.Output)
		t.Lines, t.NoteLines = nil, nil // the catalog lines hold the same text, unscrubbed
	}
	if r.Why != nil {
		out.Why = nil
	}
	return &out
}

// RosterEntry is one learner of a roster: who the learner is to the school's gradebook.
type RosterEntry struct {
	// Key is the learner's folder or display name, as the roster file gives it.
	Key       string `json:"-"`
	StudentID string `json:"student_id"`
	Email     string `json:"email,omitempty"`
}

// Roster maps learners (their folder name, or the display name they joined a workshop with)
// to the people a learning platform knows.
type Roster struct {
	entries map[string]RosterEntry
}

// ReadRoster reads a roster CSV: a header row naming the columns, then one row per learner.
// The learner column is "folder", "name", "learner" or "login"; the student id column
// "student_id", "id", "sis_id" or "sis user id"; the email column (optional) "email". Column
// names are matched without regard to case or surrounding space. A row without a learner or
// a student id, and a learner named twice, are errors naming the line.
func ReadRoster(path string) (*Roster, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: the roster is empty (a header row, then one row per learner: folder,student_id,email)", path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	col := func(names ...string) int {
		return slices.IndexFunc(head, func(h string) bool {
			return slices.Contains(names, strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))))
		})
	}
	key, id, email := col("folder", "name", "learner", "login"), col("student_id", "id", "sis_id", "sis user id"), col("email")
	if key < 0 || id < 0 {
		return nil, fmt.Errorf("%s:1: the header names no learner column (folder, name, learner or login) or no student id column (student_id, id or sis_id): %q", path, head)
	}
	r := &Roster{entries: map[string]RosterEntry{}}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		cell := func(i int) string {
			if i < 0 || i >= len(rec) {
				return ""
			}
			return strings.TrimSpace(rec[i])
		}
		e := RosterEntry{Key: cell(key), StudentID: cell(id), Email: cell(email)}
		if e.Key == "" && e.StudentID == "" {
			continue // a blank line
		}
		if e.Key == "" || e.StudentID == "" {
			return nil, fmt.Errorf("%s:%d: a learner and a student id are both needed: %q", path, line, rec)
		}
		if _, dup := r.entries[e.Key]; dup {
			return nil, fmt.Errorf("%s:%d: %q is in the roster twice", path, line, e.Key)
		}
		r.entries[e.Key] = e
	}
	return r, nil
}

// Lookup returns the roster's entry for a learner named name (a class report's name such as
// "alice" or "a/alice", or a workshop display name): the entry of the whole name, else of
// its last folder.
func (r *Roster) Lookup(name string) (RosterEntry, bool) {
	if r == nil {
		return RosterEntry{}, false
	}
	if e, ok := r.entries[name]; ok {
		return e, true
	}
	e, ok := r.entries[filepath.Base(name)]
	return e, ok
}

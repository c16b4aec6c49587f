// Package faultdiff applies the fault.diff of a broken reference submission (testdata/
// references/<kata>/<lang>/<ref>/fault.diff) on top of the correct reference, so that each
// broken reference is stored as exactly its one fault. Only the tests use it.
package faultdiff

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Apply applies diff, a unified diff (`diff -u`, git diff or Python difflib output), to the
// files under dir. Application is strict: every hunk's context and removed lines must match
// the file exactly where the hunk says, so a stale diff is an error, never a silent no-op.
// "--- /dev/null" creates a file. Errors name the diff's line.
func Apply(dir, diff string) error {
	lines := strings.SplitAfter(diff, "\n")
	var (
		file    string   // path of the file being patched, relative to dir
		in, out []string // its lines before and after, for the hunks so far
		pos     int      // next line of in not yet copied to out
	)
	flush := func() error {
		if file == "" {
			return nil
		}
		out = append(out, in[pos:]...)
		dst := filepath.Join(dir, filepath.FromSlash(file))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, []byte(strings.Join(out, "")), 0o644)
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case l == "" || strings.HasPrefix(l, "diff ") || strings.HasPrefix(l, "index ") || strings.HasPrefix(l, "Only in "):
			// the empty string after a final newline; headers of diff -r and git diff
		case strings.HasPrefix(l, "--- "):
			if err := flush(); err != nil {
				return err
			}
			file, in, out, pos = "", nil, nil, 0
		case strings.HasPrefix(l, "+++ "):
			// like patch -p1: drop a timestamp after a tab and the first path component
			// ("b/", "changed/")
			name, _, _ := strings.Cut(strings.TrimPrefix(l, "+++ "), "\t")
			name = strings.TrimSpace(name)
			if _, rest, ok := strings.Cut(name, "/"); ok {
				name = rest
			}
			file = name
			if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(file))); err == nil {
				in = strings.SplitAfter(string(b), "\n")
				if in[len(in)-1] == "" {
					in = in[:len(in)-1]
				}
			}
		case strings.HasPrefix(l, "@@"):
			if file == "" {
				return fmt.Errorf("line %d: a hunk before any +++ header", i+1)
			}
			oldStart, err := hunkStart(l)
			if err != nil {
				return fmt.Errorf("line %d: %v", i+1, err)
			}
			at := max(oldStart-1, 0)
			if at < pos || at > len(in) {
				return fmt.Errorf("line %d: hunk at line %d of %s is out of order or past its end", i+1, oldStart, file)
			}
			out = append(out, in[pos:at]...)
			pos = at
			for i+1 < len(lines) && lines[i+1] != "" && strings.ContainsRune(" -+", rune(lines[i+1][0])) &&
				!strings.HasPrefix(lines[i+1], "--- ") {
				i++
				body := lines[i][1:]
				switch lines[i][0] {
				case ' ', '-':
					if pos >= len(in) || in[pos] != body {
						return fmt.Errorf("line %d: %s line %d does not match the diff: %q", i+1, file, pos+1, strings.TrimRight(body, "\n"))
					}
					if lines[i][0] == ' ' {
						out = append(out, body)
					}
					pos++
				case '+':
					out = append(out, body)
				}
			}
		default:
			return fmt.Errorf("line %d: unexpected %q", i+1, strings.TrimRight(l, "\n"))
		}
	}
	return flush()
}

// hunkStart reads the old file's first line from a hunk header "@@ -l,s +l,s @@".
func hunkStart(h string) (int, error) {
	f := strings.Fields(h)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") {
		return 0, fmt.Errorf("bad hunk header %q", strings.TrimSpace(h))
	}
	n, _, _ := strings.Cut(f[1][1:], ",")
	return strconv.Atoi(n)
}

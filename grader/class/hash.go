package class

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/kata-mcp/kata/grader"
)

// maxHashed bounds how much of a learner's folder is read to hash it; a folder larger than
// this is hashed by its first maxHashed bytes plus every file's name and size.
const maxHashed = 256 << 20

// HashFolder returns a hash of the submission in dir: every file's path relative to dir, its
// executable bit and its content, and every symbolic link's target, in path order; what
// grader.IgnoredPath leaves out (build output, caches, .git, swap files) does not count, so
// grading a folder (which builds into .kata/) does not change its hash. A folder that does
// not exist hashes as empty.
func HashFolder(dir string) (string, error) {
	h := sha256.New()
	read := int64(0)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir && os.IsNotExist(err) {
				return filepath.SkipAll
			}
			return err
		}
		if path == dir {
			return nil
		}
		if grader.IgnoredPath(dir, path) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		switch info, err := d.Info(); {
		case err != nil:
			return err
		case d.IsDir():
			fmt.Fprintf(h, "d %s\x00", filepath.ToSlash(rel))
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "l %s\x00%s\x00", filepath.ToSlash(rel), target)
		case info.Mode().IsRegular():
			fmt.Fprintf(h, "f %s\x00%t\x00%d\x00", filepath.ToSlash(rel), info.Mode()&0o111 != 0, info.Size())
			if read >= maxHashed {
				return nil
			}
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			n, err := io.CopyN(h, f, maxHashed-read)
			f.Close()
			read += n
			if err != nil && err != io.EOF {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hashing %s: %w", dir, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

package workshop

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/adrg/xdg"
)

// Instructor is what `kata serve` leaves for the instructor's other commands (`kata class
// open`, `kata class quiz`, …) on the same machine: the server's address, the workshop's
// code and the instructor token (the server keeps only its hash; this file, readable by its
// owner only, is the instructor's own credential).
type Instructor struct {
	Base  string `json:"base"`
	Code  string `json:"code"`
	Token string `json:"token"`
}

// SaveInstructor writes i to path (mode 0600, its folder created 0700).
func SaveInstructor(path string, i Instructor) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(i, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// LoadInstructor reads what SaveInstructor wrote; a missing file says to start kata serve.
func LoadInstructor(path string) (Instructor, error) {
	var i Instructor
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return i, fmt.Errorf("no workshop is being served from this machine (%s is missing): start kata serve first, or pass --server and --token", path)
	}
	if err != nil {
		return i, err
	}
	if err := json.Unmarshal(b, &i); err != nil {
		return i, fmt.Errorf("%s: %w", path, err)
	}
	if i.Base == "" || i.Token == "" {
		return i, fmt.Errorf("%s: base and token must both be set", path)
	}
	return i, nil
}

// DefaultDB is kata serve's SQLite file: $XDG_DATA_HOME/kata/workshop.db
// (~/.local/share/kata/workshop.db on Linux).
func DefaultDB() string { return filepath.Join(xdg.DataHome, "kata", "workshop.db") }

// DefaultInstructorFile is where kata serve leaves the Instructor credentials:
// $XDG_DATA_HOME/kata/instructor.json.
func DefaultInstructorFile() string { return filepath.Join(xdg.DataHome, "kata", "instructor.json") }

package katas

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// IndexFile is the file name of an index of packets: for each packet folder that validated, a
// digest of its files and its counts. A packet whose files still have that digest is known by
// its manifest until first use, and its counts are the index's (see Library). Nothing ships an
// index: the app keeps one for the embedded packets in the user's cache folder (AddCached),
// written the first time they are parsed, so a new or changed packet needs no step of its own.
const IndexFile = "index.json"

// Counts are a packet's sizes as kata list and the catalog show them.
type Counts struct {
	Items int `json:"items"`
	// Traps counts trap rows over all tables; TrapTables the tables.
	Traps      int `json:"traps"`
	TrapTables int `json:"trap_tables"`
	TaskSteps  int `json:"task_steps"`
	// Fixtures is FixtureCount: server fixtures, client scenarios and config rules.
	Fixtures int `json:"fixtures"`
}

// Counts returns the packet's counts.
func (p *Packet) Counts() Counts {
	return Counts{Items: len(p.Items), Traps: p.TrapCount(), TrapTables: len(p.Traps), TaskSteps: len(p.Task.Steps), Fixtures: p.FixtureCount()}
}

// indexEntry is one packet folder's line of the index.
type indexEntry struct {
	// Digest is PacketDigest of the folder when the index was written.
	Digest string `json:"digest"`
	Counts
}

// readIndex reads the index file at path; none (or one that does not decode) is an empty
// index, and every packet is then parsed when added.
func readIndex(path string) map[string]indexEntry {
	b, err := os.ReadFile(path)
	if err != nil || len(b) > maxIndexBytes {
		return nil
	}
	var idx map[string]indexEntry
	if json.Unmarshal(b, &idx) != nil {
		return nil
	}
	return idx
}

// maxIndexBytes bounds the index file read: a few hundred bytes a packet.
const maxIndexBytes = 1 << 20

// writeIndex replaces the index file at path with idx, atomically (a temporary file renamed
// over it), readable by the user only. It is a cache: the caller ignores its error.
func writeIndex(path string, idx map[string]indexEntry) error {
	b, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".index-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// DefaultIndexCache is where the app keeps the index of its embedded packets:
// $XDG_CACHE_HOME/kata/index.json (os.UserCacheDir); "" when there is no cache folder.
func DefaultIndexCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "kata", IndexFile)
}

// PacketDigest is the SHA-256, in hex, of every file of packet folder dir of fsys: each file's
// path and contents, in walk order (lexical), so that any change to any file of the packet
// gives another digest.
func PacketDigest(fsys fs.FS, dir string) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		rel := p[len(dir):]
		h.Write([]byte(path.Clean("/" + rel)))
		h.Write([]byte{0})
		h.Write(b)
		h.Write([]byte{0})
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

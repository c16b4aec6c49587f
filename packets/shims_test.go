package packets

import (
	"bytes"
	"io/fs"
	"path"
	"strings"
	"testing"
)

// TestProtocolShimsAreOneFile: each packet is self-contained (an instructor copies one folder),
// so every graded packet carries its own copy of the protocol shims a learner need not touch
// (mcp_shim.*, kata_client_shim.*, Go's internal/shim). The copies are one file by intent: a
// fix to one must reach the others, or the same learner code would behave differently per kata.
func TestProtocolShimsAreOneFile(t *testing.T) {
	copies := map[string]map[string][]byte{} // path inside templates/ → packet → content
	err := fs.WalkDir(FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		packet, rest, _ := strings.Cut(p, "/")
		inTemplates, ok := strings.CutPrefix(rest, "templates/")
		if !ok || !strings.Contains(path.Base(inTemplates), "shim") && !strings.Contains(inTemplates, "/shim/") {
			return nil
		}
		b, err := fs.ReadFile(FS, p)
		if err != nil {
			return err
		}
		if copies[inTemplates] == nil {
			copies[inTemplates] = map[string][]byte{}
		}
		copies[inTemplates][packet] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(copies) == 0 {
		t.Fatal("no shim found in any packet's templates")
	}
	for file, byPacket := range copies {
		var first string
		for p := range byPacket {
			if first == "" || p < first {
				first = p
			}
		}
		for p, b := range byPacket {
			if !bytes.Equal(b, byPacket[first]) {
				t.Errorf("templates/%s differs between %s and %s; the shims are one file kept in every packet: copy the change to each", file, first, p)
			}
		}
	}
}

package katas

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/kata-mcp/kata/internal/i18n"
)

// Layer is one layer of one packet, read into memory: its Markdown files in name order.
// A Layer stays readable only while it is the Library's resident layer; loading another layer
// releases it (its content is dropped and Released reports true). This is the packet
// discipline of loading one layer at a time, never all together.
type Layer struct {
	Packet string
	Name   string
	// Locale is the language the layer was asked in ("" for English, see Library.Localized);
	// Fallback lists the files (by their English names) read in English all the same: no
	// locale twin, or one that disagrees with its English file (CheckTwin).
	Locale   string
	Fallback []string

	mu       sync.Mutex
	files    []LayerFile
	released bool
}

// LayerFile is one Markdown file of a layer. Name is the English file's name, e.g.
// "01-mental-model.md", also when Markdown is its locale twin's.
type LayerFile struct {
	Name     string
	Markdown string
}

// Files returns the layer's files, or nil once the layer has been released.
func (l *Layer) Files() []LayerFile {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.files
}

// Released reports whether a later LoadLayer released this layer.
func (l *Layer) Released() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.released
}

// Markdown returns the layer's files joined into one document, each file separated by a rule;
// "" once released. Front matter (a leading "---" block, as in subagent definitions) is shown
// as a fenced YAML block so renderers do not mistake it for a heading.
func (l *Layer) Markdown() string {
	var parts []string
	for _, f := range l.Files() {
		parts = append(parts, frontMatterAsCode(f.Markdown))
	}
	return strings.Join(parts, layerSeparator)
}

// frontMatterAsCode turns a leading YAML front matter block into a fenced yaml code block.
func frontMatterAsCode(md string) string {
	if !strings.HasPrefix(md, "---\n") {
		return md
	}
	end := strings.Index(md[4:], "\n---\n")
	if end < 0 {
		return md
	}
	return "```yaml\n" + foldFrontMatter(md[4:4+end]) + "\n```\n" + md[4+end+5:]
}

// frontMatterFold is the width long front matter values are folded at, so that a subagent's
// description reads whole on a 60-column terminal instead of running past the edge (code lines
// are cut, never wrapped).
const frontMatterFold = 54

// foldFrontMatter rewrites each top-level "key: value" line of YAML front matter whose plain
// value is longer than frontMatterFold as a folded block scalar ("key: >-" and the value's
// words on indented lines), which YAML reads as the same string. Quoted, block and flow values
// and indented lines are left as written.
func foldFrontMatter(yaml string) string {
	lines := strings.Split(yaml, "\n")
	var out []string
	for _, l := range lines {
		key, val, ok := strings.Cut(l, ": ")
		if !ok || utf8.RuneCountInString(l) <= frontMatterFold || key == "" || strings.ContainsAny(key, " \t#'\"") ||
			val == "" || strings.ContainsAny(val[:1], "'\"|>[{&*!%@`#") || strings.Contains(val, " #") {
			out = append(out, l)
			continue
		}
		out = append(out, key+": >-")
		cur := " "
		for _, w := range strings.Fields(val) {
			if len(cur) > 1 && utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(w) > frontMatterFold {
				out = append(out, cur)
				cur = " "
			}
			cur += " " + w
		}
		out = append(out, cur)
	}
	return strings.Join(out, "\n")
}

// LoadLayer reads one layer of a packet and makes it the resident layer, releasing the layer
// that was resident before (if it is a different one). Asking for the resident layer again
// returns it without reading. In a localized view (Localized) each file is read from its
// locale twin where it has one that agrees with it, and the layer lists the files read in
// English (Fallback). Errors: unknown packet or layer, unreadable files, and, as
// Problems naming file and line, a file that is a link, is not UTF-8, breaks MarkdownBounds or
// embeds an asset it cannot, or a layer larger than MaxMarkdownBytes (docs/packets.md#limits).
func (l *Library) LoadLayer(packetID, layer string) (*Layer, error) {
	p, err := l.packetLayer(packetID, layer)
	if err != nil {
		return nil, err
	}
	l.res.mu.Lock()
	defer l.res.mu.Unlock()
	if r := l.res.resident; r != nil && r.Packet == packetID && r.Name == layer && r.Locale == l.locale {
		return r, nil
	}
	files, fallback, ps := readLayer(p.fsys, p.Dir, layer, l.locale)
	if len(ps) > 0 {
		return nil, ps
	}
	nl := &Layer{Packet: packetID, Name: layer, Locale: l.locale, Fallback: fallback, files: files}
	l.releaseLocked()
	l.res.resident = nl
	return nl, nil
}

// Resident returns the resident layer, or nil when none is loaded.
func (l *Library) Resident() *Layer {
	l.res.mu.Lock()
	defer l.res.mu.Unlock()
	return l.res.resident
}

// ReleaseLayer drops the resident layer, if any.
func (l *Library) ReleaseLayer() {
	l.res.mu.Lock()
	defer l.res.mu.Unlock()
	l.releaseLocked()
}

func (l *Library) releaseLocked() {
	if r := l.res.resident; r != nil {
		r.mu.Lock()
		r.files, r.released = nil, true
		r.mu.Unlock()
		l.res.resident = nil
	}
}

// packetLayer returns the packet with the given id when it has the named layer; otherwise an
// error naming the known katas or the packet's layers.
func (l *Library) packetLayer(packetID, layer string) (*Packet, error) {
	p, ok := l.Get(packetID)
	if !ok {
		return nil, i18n.Err("out.unknown_kata", "ID", strconv.Quote(packetID), "Known", strings.Join(l.IDs(), ", "))
	}
	if !slices.Contains(p.Layers, layer) {
		return nil, fmt.Errorf("kata %s has no layer %q (layers: %s)", packetID, layer, strings.Join(p.Layers, ", "))
	}
	return p, nil
}

// layerSeparator joins a layer's files in Markdown.
const layerSeparator = "\n\n---\n\n"

// LayerSize returns, in bytes, the size of a layer's Markdown files as stored plus the rules
// that join them, without reading the files or touching the resident layer (it only stats
// them), so a listing of every layer stays cheap. It is what len(Layer.Markdown()) comes to for
// a layer without embedded assets or front matter; a file that embeds an asset table, or starts
// with front matter, reads somewhat longer once loaded. In a localized view a file's locale twin
// is measured where it has one. Errors: unknown packet or layer, a
// layer folder or file that cannot be read.
func (l *Library) LayerSize(packetID, layer string) (int64, error) {
	p, err := l.packetLayer(packetID, layer)
	if err != nil {
		return 0, err
	}
	names, err := layerFiles(p.fsys, p.Dir, layer)
	if err != nil {
		return 0, err
	}
	var n int64
	for i, name := range names {
		file := path.Join(p.Dir, layer, name)
		st, err := fs.Stat(p.fsys, file)
		if l.locale != "" {
			if tw, terr := fs.Stat(p.fsys, TwinName(file, l.locale)); terr == nil {
				st, err = tw, nil
			}
		}
		if err != nil {
			return 0, fmt.Errorf("%s: %w", file, err)
		}
		if i > 0 {
			n += int64(len(layerSeparator))
		}
		n += st.Size()
	}
	return n, nil
}

package katas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path"
	"reflect"
	"strings"

	"github.com/kata-mcp/kata/internal/termtext"
)

// A packet's text is printed on terminals (kata list, show, grade, the app), and a packet may
// come from anyone: a control character in it would be obeyed — OSC 52 writes the clipboard,
// OSC 0 the window title, OSC 8 makes a link that hides its target. Loading drops them (every
// Markdown file as it is parsed or shown, every string decoded from JSON), so no writer can
// print one; kata validate reports each (checkControls), as none belongs in a packet.

// cleanMarkdown returns Markdown source without control characters and without character
// references to them (termtext.Markdown).
func cleanMarkdown(src []byte) []byte {
	if termtext.Control(string(src)) < 0 && termtext.ControlRef(string(src)) < 0 && !bytes.Contains(src, []byte("\r")) {
		return src
	}
	return []byte(termtext.Markdown(string(src)))
}

// sanitizeStrings sanitises, in place, every string v reaches through pointers, interfaces,
// structs (exported fields), slices, arrays and maps (keys and values) — what a JSON decoder
// filled.
func sanitizeStrings(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			sanitizeStrings(v.Elem())
		}
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		if e := v.Elem(); e.Kind() == reflect.String {
			if v.CanSet() {
				v.Set(reflect.ValueOf(termtext.Sanitize(e.String())).Convert(e.Type()))
			}
		} else {
			sanitizeStrings(e)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				sanitizeStrings(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			sanitizeStrings(v.Index(i))
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(termtext.Sanitize(v.String()))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			sanitizeStrings(e)
			nk := k
			if k.Kind() == reflect.String {
				if s := termtext.Sanitize(k.String()); s != k.String() {
					v.SetMapIndex(k, reflect.Value{})
					nk = reflect.ValueOf(s).Convert(k.Type())
				}
			}
			v.SetMapIndex(nk, e)
		}
	}
}

// readBounded reads a file of at most limit bytes. A larger one is not read whole: b is nil and
// size is its size, or -1 when it grew past limit as it was read.
func readBounded(fsys fs.FS, file string, limit int64) (b []byte, size int64, err error) {
	f, err := fsys.Open(file)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > limit {
		return nil, st.Size(), nil
	}
	b, err = io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, 0, err
	}
	if int64(len(b)) > limit {
		return nil, -1, nil
	}
	return b, int64(len(b)), nil
}

// readJSON reads a JSON file of a packet, refusing one past MaxJSONBytes before it is read
// whole (a 300 MB fixtures file made every start of kata take seconds and gigabytes); the
// refusal is a *ParseError naming the file.
func readJSON(fsys fs.FS, file string) ([]byte, error) {
	b, size, err := readBounded(fsys, file, MaxJSONBytes)
	if err == nil && b == nil {
		return nil, jsonTooLarge(file, size)
	}
	return b, err
}

// readMarkdown reads a Markdown file of a packet, refusing one past MaxMarkdownBytes before it
// is read whole, with MarkdownBounds' problem at line 1 (a *ParseError).
func readMarkdown(fsys fs.FS, file string) ([]byte, error) {
	b, size, err := readBounded(fsys, file, MaxMarkdownBytes)
	if err == nil && b == nil {
		return nil, errAt(file, 1, "%s", markdownTooLarge(size))
	}
	return b, err
}

// jsonTooLarge is the problem of a JSON file of size bytes (-1: unknown, past the bound).
func jsonTooLarge(file string, size int64) *ParseError {
	var amount string
	switch {
	case size < 0:
		amount = fmt.Sprintf("more than %d MiB", MaxJSONBytes>>20)
	case size >= 10<<20:
		amount = fmt.Sprintf("%d MiB", (size+1<<20-1)>>20)
	default:
		amount = fmt.Sprintf("%d KiB", (size+1023)>>10)
	}
	return errAt(file, 0, "%s of JSON; a packet's JSON file is at most %d MiB (it is read whenever kata starts: split the data, or shorten it)", amount, MaxJSONBytes>>20)
}

// controlProblem is the message for a control character r in a packet's text.
func controlProblem(r rune) string {
	return fmt.Sprintf("the text holds a control character, U+%04X; a packet's text holds none but tab and newline (a terminal obeys them: ESC and C1 codes start sequences that write the clipboard or the window title, or hide a link's target)", r)
}

// checkControls reports, for kata validate, each file or folder of the packet whose name holds
// a control character, each line of a Markdown file that holds one (raw, or as a character
// reference such as "&#27;", which a renderer decodes), each JSON string (key or value) that
// holds one, and each JSON file past MaxJSONBytes that nothing else read. The starter
// workspaces under templates/<lang>/ are code, not text kata prints, and are not checked.
func checkControls(fsys fs.FS, dir string, ps *Problems) {
	reported := map[string]bool{}
	for _, p := range *ps {
		reported[p.File] = true
	}
	fs.WalkDir(fsys, dir, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if termtext.Name(d.Name()) != d.Name() {
			ps.add(name, 0, "the name holds a control character; rename it (a name is printed on terminals, which obey control characters)")
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(name, dir), "/")
		if d.IsDir() {
			if inTmpl, ok := strings.CutPrefix(rel, "templates/"); ok && inTmpl != "" {
				return fs.SkipDir // templates/<lang>/: a starter workspace
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		switch path.Ext(name) {
		case ".md":
			src, err := fs.ReadFile(fsys, name)
			if err != nil || len(src) > MaxMarkdownBytes {
				return nil // reported where it is read
			}
			checkMarkdownControls(name, string(src), ps)
		case ".json":
			src, err := readJSON(fsys, name)
			if err != nil {
				if !reported[name] {
					ps.addErr(name, err)
				}
				return nil
			}
			checkJSONControls(name, src, ps)
		}
		return nil
	})
}

// checkMarkdownControls reports each line of md that holds a control character or a
// character reference to one.
func checkMarkdownControls(file, md string, ps *Problems) {
	for i, line := range strings.Split(md, "\n") {
		if off := termtext.Control(line + "\n"); off >= 0 {
			r := []rune(line[off:])[0]
			ps.add(file, i+1, "%s", controlProblem(r))
		}
		if off := termtext.ControlRef(line); off >= 0 {
			ref := line[off : off+strings.IndexByte(line[off:], ';')+1]
			ps.add(file, i+1, "the character reference %s names a control character; a packet's text holds none but tab and newline (a renderer decodes it, and a terminal obeys it)", ref)
		}
	}
}

// checkJSONControls reports each string of a JSON document, key or value, that holds a control
// character (written as an escape such as "\u001b", or raw as C1 codes may be).
func checkJSONControls(file string, src []byte, ps *Problems) {
	dec := json.NewDecoder(bytes.NewReader(src))
	for {
		tok, err := dec.Token()
		if err != nil {
			return // a syntax error is reported where the file is decoded
		}
		s, ok := tok.(string)
		if !ok {
			continue
		}
		if off := termtext.Control(s); off >= 0 {
			ps.add(file, lineOf(src, int(dec.InputOffset())), "%s", controlProblem([]rune(s[off:])[0]))
		}
	}
}

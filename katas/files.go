package katas

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/kata-mcp/kata/internal/termtext"
)

// checkFiles walks the packet folder dir and reports what loading or `kata init` would
// otherwise misread (docs/packets.md#limits): a symbolic link or any other file that is not a
// plain file or folder (a link may point outside the packet, and init would copy what it points
// at), and a template whose workspace name, once TemplateSuffix is dropped, is not a plain
// relative path ("...tmpl" would name the workspace's parent). It reads no file.
func checkFiles(fsys fs.FS, dir string, ps *Problems) {
	fs.WalkDir(fsys, dir, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			ps.add(name, 0, "cannot read: %v", unwrapPathError(err))
			return nil
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			ps.add(name, 0, "%s; a packet holds plain files and folders only (a link could point outside the packet)", fileKind(d.Type()))
			return nil
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(name, dir), "/")
		if inLang, ok := strings.CutPrefix(rel, "templates/"); ok && !d.IsDir() && strings.Contains(inLang, "/") {
			_, tmpl, _ := strings.Cut(inLang, "/") // templates/<lang>/<tmpl>
			if _, ok := workspaceName(tmpl); !ok {
				ps.add(name, 0, "template name %q becomes %q in the workspace; each part of a template's path must be a plain name (not empty, \".\" or \"..\")", tmpl, strings.TrimSuffix(tmpl, TemplateSuffix))
			}
		}
		return nil
	})
}

// checkTexts reports each Markdown file of the packet (locale twins included) that is not UTF-8
// text or breaks MarkdownBounds, and each layer readLayer refuses — the checks LoadLayer makes
// when a layer is shown, made here for all of them. Files CheckPacket parses were checked as it
// read them.
func checkTexts(fsys fs.FS, dir string, layers []string, ps *Problems) {
	fs.WalkDir(fsys, dir, func(name string, d fs.DirEntry, err error) error {
		rel := strings.TrimPrefix(strings.TrimPrefix(name, dir), "/")
		_, _, twin := SplitTwin(d.Name())
		layerFile := slices.Contains(layers, path.Dir(rel)) && !twin // a locale twin is no layer file
		if err != nil || !d.Type().IsRegular() || !strings.HasSuffix(name, ".md") || layerFile || slices.Contains(parsedFiles, rel) {
			return nil
		}
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			ps.add(name, 0, "cannot read: %v", unwrapPathError(err))
			return nil
		}
		checkMarkdownText(name, src, ps)
		return nil
	})
	for _, layer := range layers {
		if _, err := layerFiles(fsys, dir, layer); err != nil {
			continue // reported by CheckPacket
		}
		_, _, lps := readLayer(fsys, dir, layer, "")
		*ps = append(*ps, lps...)
	}
}

// parsedFiles are the Markdown files CheckPacket reads and checks itself.
var parsedFiles = []string{"exam.md", "traps.md", "task.md"}

// fileKind names a file type that is not a plain file or folder.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
}

// checkMarkdownText reports a Markdown file that is not UTF-8 text (TextProblem) or breaks
// MarkdownBounds.
func checkMarkdownText(file string, src []byte, ps *Problems) {
	line, msg := TextProblem(src)
	if line == 0 {
		line, msg = MarkdownBounds(src)
	}
	if line > 0 {
		ps.add(file, line, "%s", msg)
	}
}

// markdownFit reports whether src is UTF-8 text within MarkdownBounds, so it may be parsed.
func markdownFit(src []byte) bool {
	if line, _ := TextProblem(src); line > 0 {
		return false
	}
	line, _ := MarkdownBounds(src)
	return line == 0
}

// workspaceName is the workspace path a template file is written to: its slash path under
// templates/<lang>/ with a trailing TemplateSuffix dropped. ok is false when a part of that
// path is empty, "." or "..": it would name a folder above the file, or the workspace's parent.
func workspaceName(rel string) (string, bool) {
	out := strings.TrimSuffix(rel, TemplateSuffix)
	for _, part := range strings.Split(out, "/") {
		if part == "" || part == "." || part == ".." {
			return out, false
		}
	}
	return out, true
}

// plainFile returns an error when name is a symbolic link or not a plain file, where fsys can
// tell (os.DirFS can), so a file swapped for a link after the packet was loaded is not read.
func plainFile(fsys fs.FS, name string) error {
	if _, ok := fsys.(fs.ReadLinkFS); !ok {
		return nil
	}
	st, err := fs.Lstat(fsys, name)
	if err != nil {
		return nil // the read that follows reports it
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: %s; a packet holds plain files and folders only", name, fileKind(st.Mode().Type()))
	}
	return nil
}

// readLayer reads the Markdown files of a layer folder with their assets expanded, and reports,
// in file:line problems, a file that is a link, is not UTF-8 or breaks MarkdownBounds, an asset
// that cannot be embedded, and a layer whose files joined come to more than MaxMarkdownBytes.
// With a locale (not ""), each file is read from its locale twin where that twin reads and
// agrees with the English file (CheckTwin); the English names of the files read in English all
// the same are fallback. A twin's problems are no layer's problems: its English file is shown.
// The Markdown and the file names come without control characters (termtext.Markdown,
// termtext.Name): the layer is printed on terminals.
func readLayer(fsys fs.FS, dir, layer, locale string) (files []LayerFile, fallback []string, ps Problems) {
	names, err := layerFiles(fsys, dir, layer)
	if err != nil {
		ps.addErr(path.Join(dir, layer), err)
		return nil, nil, ps
	}
	size := 0
	for _, n := range names {
		file := path.Join(dir, layer, n)
		b, ok := readLayerFile(fsys, file, &ps)
		if !ok {
			continue
		}
		var md string
		twinRead := false
		if locale != "" {
			// A twin is shown when it agrees with the English file and its assets (or their
			// locale twins) expand; else the English file is, and the twin is a fallback.
			if tw, twSrc, ok := readTwin(fsys, file, b, locale); ok {
				if twMD, err := expandAssets(fsys, dir, tw, twSrc); err == nil {
					file, md, twinRead = tw, twMD, true
				}
			}
			if !twinRead {
				fallback = append(fallback, n)
			}
		}
		var err error
		if !twinRead {
			md, err = expandAssets(fsys, dir, file, b)
		}
		if err != nil {
			ps.addErr(file, err)
			continue
		}
		if len(files) > 0 {
			size += len(layerSeparator)
		}
		size += len(md)
		files = append(files, LayerFile{Name: termtext.Name(n), Markdown: termtext.Markdown(md)})
	}
	if size > MaxMarkdownBytes && len(ps) == 0 {
		ps.add(path.Join(dir, layer), 0, "the layer's files come to %d KiB with their assets; a layer shows at most %d KiB (move some of it to another layer, or shorten it)", (size+1023)>>10, MaxMarkdownBytes>>10)
	}
	return files, fallback, ps
}

// readLayerFile reads one Markdown file of a packet, reporting a link, a file that cannot be
// read, is not UTF-8 or breaks MarkdownBounds; ok is false when it reported one.
func readLayerFile(fsys fs.FS, file string, ps *Problems) ([]byte, bool) {
	if err := plainFile(fsys, file); err != nil {
		ps.add(file, 0, "%v", strings.TrimPrefix(err.Error(), file+": "))
		return nil, false
	}
	b, err := readMarkdown(fsys, file)
	var tooLarge *ParseError
	if errors.As(err, &tooLarge) {
		ps.addErr(file, err)
		return nil, false
	}
	if err != nil {
		ps.add(file, 0, "cannot read: %v", unwrapPathError(err))
		return nil, false
	}
	before := len(*ps)
	checkMarkdownText(file, b, ps)
	return b, len(*ps) == before
}

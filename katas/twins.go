package katas

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
)

// A locale twin is a packet file written in another language beside its English file: the
// English name with a two-letter lower-case locale (ISO 639-1) before ".md", such as
// knowledge/01-mental-model.es.md beside knowledge/01-mental-model.md, or exam.ru.md beside
// exam.md. A twin keeps every id, key position, option count, trap row and step of its English
// file, and its code blocks unchanged, so progress, cards and exam history are shared across
// locales.

// SplitTwin splits a locale twin's file name into the English file's name and the locale:
// "01-model.es.md" → ("01-model.md", "es", true). A name without a two-letter locale before
// ".md" ("exam.md", "notes.v2.md") is no twin: ok is false.
func SplitTwin(name string) (english, locale string, ok bool) {
	stem, found := strings.CutSuffix(name, ".md")
	if !found {
		return "", "", false
	}
	i := strings.LastIndexByte(stem, '.')
	if i <= 0 || len(stem)-i-1 != 2 {
		return "", "", false
	}
	loc := stem[i+1:]
	for j := range len(loc) {
		if loc[j] < 'a' || loc[j] > 'z' {
			return "", "", false
		}
	}
	return stem[:i] + ".md", loc, true
}

// CheckTwin compares a locale twin with its English file. english and twin are the files' paths
// as problems name them (inside the packet source), enSrc and twSrc their contents. What it
// compares depends on the file:
//
//   - exam.md (docs/packets.md, "exam.md"): the same item ids in the same order, each with the
//     same Scenario:, the same Choose:, the same number of options, the checked boxes on the
//     same options, and the same code blocks in its stem;
//   - traps.md ("traps.md"): the same number of trap tables, in order, each with the same
//     number of rows (the columns are the parser's: a twin keeps the header row
//     Trap | Why it fails | Correct pattern);
//   - task.md ("task.md"): the same step numbers and the same code blocks;
//   - a layer file: the same code blocks (in prompts/, all but the first: the prompt's text is
//     written in the twin's language) and asset directives; in prompts/ the same argument names
//     in order, in agents/ the same front-matter name and tools.
//
// Each difference is a problem at the twin's file and line whose message names the English
// file and line; problems parsing the twin are reported as the parsers name them. An English
// file that has problems of its own is not compared with (its problems are CheckPacket's to
// report): then only the twin's own problems are. Problems are sorted by file and line.
func CheckTwin(english string, enSrc []byte, twin string, twSrc []byte) Problems {
	var ps Problems
	// A broken English file is reported where the packet is checked; comparing a twin with it
	// would only restate that problem once per locale, so the twin waits until it parses.
	if enProblems := CheckTwinSource(english, enSrc); len(enProblems) > 0 {
		return CheckTwinSource(twin, twSrc)
	}
	switch {
	case slices.Contains(LayerNames, path.Base(path.Dir(english))):
		checkLayerTwin(english, enSrc, twin, twSrc, &ps)
	case path.Base(english) == "exam.md":
		checkExamTwin(english, enSrc, twin, twSrc, &ps)
	case path.Base(english) == "traps.md":
		checkTrapsTwin(english, enSrc, twin, twSrc, &ps)
	case path.Base(english) == "task.md":
		checkTaskTwin(english, enSrc, twin, twSrc, &ps)
	default:
		ps.add(twin, 0, "a locale twin of %s, which is not exam.md, traps.md, task.md or a layer file", english)
	}
	sortProblems(ps)
	return ps
}

// CheckTwinSource parses one packet file (exam.md, traps.md, task.md, a prompt, or any other
// layer file, which has no structure to parse) as the loader would and returns its problems,
// named at file. It is how CheckTwin tells a broken English file from a twin that differs.
func CheckTwinSource(file string, src []byte) Problems {
	var ps Problems
	switch {
	case path.Base(path.Dir(file)) == "prompts":
		_, err := ParsePrompt(file, string(src))
		ps.addErr(file, err)
	case path.Base(file) == "exam.md" || isTwinOf(file, "exam.md"):
		parseExam(file, src, &ps)
	case path.Base(file) == "traps.md" || isTwinOf(file, "traps.md"):
		parseTraps(file, src, &ps)
	case path.Base(file) == "task.md" || isTwinOf(file, "task.md"):
		parseTask(file, src, &ps)
	}
	return ps
}

// isTwinOf reports whether file's base name is a locale twin of the English name base.
func isTwinOf(file, base string) bool {
	en, _, ok := SplitTwin(path.Base(file))
	return ok && en == base
}

// CheckTwins finds every locale twin of the packet in folder dir of fsys (beside exam.md,
// traps.md and task.md, and in the layer folders) and checks each with CheckTwin. A twin whose
// English file does not exist is a problem. Problems are sorted by file and line.
func CheckTwins(fsys fs.FS, dir string) Problems {
	var ps Problems
	for _, sub := range append([]string{""}, LayerNames...) {
		folder := path.Join(dir, sub)
		entries, err := fs.ReadDir(fsys, folder)
		if err != nil {
			continue // a missing layer folder is CheckPacket's to report
		}
		for _, e := range entries {
			english, _, ok := SplitTwin(e.Name())
			if !ok || e.IsDir() {
				continue
			}
			twin, en := path.Join(folder, e.Name()), path.Join(folder, english)
			twSrc, err := fs.ReadFile(fsys, twin)
			if err != nil {
				ps.add(twin, 0, "cannot read: %v", unwrapPathError(err))
				continue
			}
			enSrc, err := fs.ReadFile(fsys, en)
			if err != nil {
				ps.add(twin, 0, "a locale twin of %s, which cannot be read: %v", en, unwrapPathError(err))
				continue
			}
			ps = append(ps, CheckTwin(en, enSrc, twin, twSrc)...)
		}
	}
	ps = append(ps, checkAssetTwins(fsys, dir)...)
	sortProblems(ps)
	return ps
}

// checkAssetTwins checks every locale twin in the packet's assets/ folder (assets/<name>.<locale>.json,
// AssetTwinName): its English asset exists, and the twin reads as an asset of the same shape.
func checkAssetTwins(fsys fs.FS, dir string) Problems {
	var ps Problems
	entries, err := fs.ReadDir(fsys, path.Join(dir, "assets"))
	if err != nil {
		return nil
	}
	for _, e := range entries {
		stem, ok := strings.CutSuffix(e.Name(), ".json")
		i := strings.LastIndexByte(stem, '.')
		if !ok || e.IsDir() || i <= 0 {
			continue
		}
		english, locale := path.Join("assets", stem[:i]+".json"), stem[i+1:]
		if _, _, twin := SplitTwin("x." + locale + ".md"); !twin {
			continue
		}
		twin := path.Join(dir, "assets", e.Name())
		en, err := ReadAsset(fsys, dir, english)
		if err != nil {
			if _, statErr := fs.Stat(fsys, path.Join(dir, english)); statErr != nil {
				ps.add(twin, 0, "a locale twin of %s, which cannot be read", path.Join(dir, english))
			}
			continue // a broken English asset is CheckPacket's to report
		}
		if _, _, err := ReadAssetTwin(fsys, dir, english, locale, en); err != nil {
			ps.addErr(twin, err)
		}
	}
	return ps
}

// at formats a file and line as problems do: "file:line".
func at(file string, line int) string { return file + ":" + strconv.Itoa(line) }

// endLine is the last line of src, where a problem about something missing at its end points.
func endLine(src []byte) int { return max(1, bytes.Count(bytes.TrimRight(src, "\n"), []byte("\n"))+1) }

func checkExamTwin(english string, enSrc []byte, twin string, twSrc []byte, ps *Problems) {
	en := parseExam(english, enSrc, ps)
	tw := parseExam(twin, twSrc, ps)
	twByID := map[string]Item{}
	for _, it := range tw {
		twByID[it.ID] = it
	}
	enByID := map[string]Item{}
	for _, it := range en {
		enByID[it.ID] = it
	}
	// A missing item is reported where it belongs: at the next item of the English order that
	// the twin has, or at the twin's end.
	for i, it := range en {
		if _, ok := twByID[it.ID]; ok {
			continue
		}
		line := endLine(twSrc)
		for _, next := range en[i+1:] {
			if t, ok := twByID[next.ID]; ok {
				line = t.Line
				break
			}
		}
		ps.add(twin, line, "item %s of %s is missing here", it.ID, at(english, it.Line))
	}
	for _, it := range tw {
		if _, ok := enByID[it.ID]; !ok {
			ps.add(twin, it.Line, "item %s is not in %s (an item keeps its id in every locale)", it.ID, english)
		}
	}
	var enOrder, twOrder []string
	for _, it := range en {
		if _, ok := twByID[it.ID]; ok {
			enOrder = append(enOrder, it.ID)
		}
	}
	for _, it := range tw {
		if _, ok := enByID[it.ID]; ok {
			twOrder = append(twOrder, it.ID)
		}
	}
	for i := range twOrder {
		if twOrder[i] != enOrder[i] {
			ps.add(twin, twByID[twOrder[i]].Line, "item %s comes where %s has item %s (%s); keep the English order",
				twOrder[i], english, enOrder[i], at(english, enByID[enOrder[i]].Line))
			break
		}
	}
	for _, e := range en {
		t, ok := twByID[e.ID]
		if !ok {
			continue
		}
		enAt := at(english, e.Line)
		if t.Scenario != e.Scenario {
			ps.add(twin, t.Line, "item %s: Scenario: %s here, %s in %s", e.ID, t.Scenario, e.Scenario, enAt)
		}
		if t.Choose != e.Choose {
			ps.add(twin, t.Line, "item %s: Choose: %d here, %d in %s", e.ID, t.Choose, e.Choose, enAt)
		}
		if len(t.Options) != len(e.Options) {
			ps.add(twin, t.Line, "item %s has %d options here, %d in %s", e.ID, len(t.Options), len(e.Options), enAt)
		} else {
			for i := range e.Options {
				eo, to := e.Options[i], t.Options[i]
				if eo.Key != to.Key {
					ps.add(twin, to.Line, "item %s: option %d of %d is %s here but %s in %s", e.ID, i+1, len(e.Options),
						keyWord(to.Key), keyWord(eo.Key), at(english, eo.Line))
				}
			}
		}
		checkCodeBlocks(fmt.Sprintf("item %s: ", e.ID), english, e.Line, stemCodeBlocks(e), twin, t.Line, stemCodeBlocks(t), ps)
	}
}

// keyWord names what a checked or unchecked box makes an option.
func keyWord(key bool) string {
	if key {
		return "a key (checked)"
	}
	return "a distractor (unchecked)"
}

func checkTrapsTwin(english string, enSrc []byte, twin string, twSrc []byte, ps *Problems) {
	en := parseTraps(english, enSrc, ps)
	tw := parseTraps(twin, twSrc, ps)
	for i := range max(len(en), len(tw)) {
		switch {
		case i >= len(tw):
			ps.add(twin, endLine(twSrc), "trap table %d of %d (%q, %s) is missing here", i+1, len(en), en[i].Title, at(english, tableLine(en[i])))
		case i >= len(en):
			ps.add(twin, tableLine(tw[i]), "trap table %d (%q) is not in %s, which has %d", i+1, tw[i].Title, english, len(en))
		case len(tw[i].Rows) != len(en[i].Rows):
			ps.add(twin, tableLine(tw[i]), "trap table %d (%q) has %d rows here, %d in %s", i+1, tw[i].Title,
				len(tw[i].Rows), len(en[i].Rows), at(english, tableLine(en[i])))
		}
	}
}

// tableLine is the line of a trap table's first row, or 1 for a table without rows.
func tableLine(t TrapTable) int {
	if len(t.Rows) > 0 {
		return t.Rows[0].Line
	}
	return 1
}

func checkTaskTwin(english string, enSrc []byte, twin string, twSrc []byte, ps *Problems) {
	en := parseTask(english, enSrc, ps)
	tw := parseTask(twin, twSrc, ps)
	for i := range max(len(en.Steps), len(tw.Steps)) {
		switch {
		case i >= len(tw.Steps):
			ps.add(twin, endLine(twSrc), "step %d of %s is missing here", en.Steps[i].Number, at(english, en.Steps[i].Line))
		case i >= len(en.Steps):
			ps.add(twin, tw.Steps[i].Line, "step %d is not in %s, which has %d steps", tw.Steps[i].Number, english, len(en.Steps))
		case tw.Steps[i].Number != en.Steps[i].Number:
			ps.add(twin, tw.Steps[i].Line, "step %d here is step %d in %s", tw.Steps[i].Number, en.Steps[i].Number, at(english, en.Steps[i].Line))
		}
	}
	checkCodeBlocks("", english, 1, codeBlocks(enSrc, false), twin, 1, codeBlocks(twSrc, false), ps)
}

func checkLayerTwin(english string, enSrc []byte, twin string, twSrc []byte, ps *Problems) {
	layer := path.Base(path.Dir(english))
	prompt := layer == "prompts"
	checkCodeBlocks("", english, 1, codeBlocks(enSrc, prompt), twin, 1, codeBlocks(twSrc, prompt), ps)
	enAssets, twAssets := assetRefs(enSrc), assetRefs(twSrc)
	for i := range max(len(enAssets), len(twAssets)) {
		switch {
		case i >= len(twAssets):
			ps.add(twin, endLine(twSrc), "the asset directive for %s of %s is missing here", enAssets[i].path, at(english, lineOf(enSrc, enAssets[i].start)))
		case i >= len(enAssets):
			ps.add(twin, lineOf(twSrc, twAssets[i].start), "the asset directive for %s is not in %s", twAssets[i].path, english)
		case enAssets[i].path != twAssets[i].path:
			ps.add(twin, lineOf(twSrc, twAssets[i].start), "asset directive for %s here, for %s in %s", twAssets[i].path, enAssets[i].path, at(english, lineOf(enSrc, enAssets[i].start)))
		}
	}
	switch layer {
	case "prompts":
		ep, err := ParsePrompt(english, string(enSrc))
		ps.addErr(english, err)
		tp, err := ParsePrompt(twin, string(twSrc))
		ps.addErr(twin, err)
		names := func(p Prompt) []string {
			var ns []string
			for _, a := range p.Arguments {
				ns = append(ns, a.Name)
			}
			return ns
		}
		if en, tw := names(ep), names(tp); !slices.Equal(en, tw) {
			ps.add(twin, argumentsLine(tp, twSrc), "prompt arguments %v here, %v in %s", tw, en, at(english, argumentsLine(ep, enSrc)))
		}
	case "agents":
		for _, key := range []string{"name", "tools"} {
			ev, el := frontMatterValue(enSrc, key)
			tv, tl := frontMatterValue(twSrc, key)
			if ev != tv {
				ps.add(twin, max(tl, 1), "front matter %s: %q here, %q in %s", key, tv, ev, at(english, max(el, 1)))
			}
		}
	}
}

// argumentsLine is the line of a prompt's first argument, or 1 when it has none.
func argumentsLine(p Prompt, src []byte) int {
	if len(p.Arguments) > 0 {
		return p.Arguments[0].Line
	}
	return 1
}

// frontMatterValue returns the value of key in a leading YAML front matter block ("key: value"
// on a line of its own) and its line; "" and 0 when there is none.
func frontMatterValue(src []byte, key string) (string, int) {
	lines := strings.Split(string(src), "\n")
	if len(lines) == 0 || lines[0] != "---" {
		return "", 0
	}
	for i, l := range lines[1:] {
		if l == "---" {
			break
		}
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			return strings.TrimSpace(v), i + 2
		}
	}
	return "", 0
}

// codeBlock is a fenced or indented code block: its text and its line in the source.
type codeBlock struct {
	text string
	line int
}

// codeBlocks lists a document's code blocks in order, at any depth (inside lists and quotes
// too); skipFirst drops the first fenced block (a prompt's text).
func codeBlocks(src []byte, skipFirst bool) []codeBlock {
	var out []codeBlock
	skipped := !skipFirst
	ast.Walk(parseMarkdown(src), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := n.(type) {
		case *ast.FencedCodeBlock:
			if !skipped {
				skipped = true
				return ast.WalkSkipChildren, nil
			}
			out = append(out, codeBlock{string(c.Lines().Value(src)), lineOf(src, nodeStart(c, src))})
			return ast.WalkSkipChildren, nil
		case *ast.CodeBlock:
			out = append(out, codeBlock{string(c.Lines().Value(src)), lineOf(src, nodeStart(c, src))})
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}

// stemCodeBlocks lists the code blocks of an item's stem, each at the item's heading line (the
// stem is parsed on its own, so its blocks' own lines would not be the file's).
func stemCodeBlocks(it Item) []codeBlock {
	bs := codeBlocks([]byte(it.Stem), false)
	for i := range bs {
		bs[i].line = it.Line
	}
	return bs
}

// proseValue matches the string value of a JSON member named message or explanation, written
// plainly ("message": "…") or escaped inside another JSON string (\"message\": \"…\", as in a
// result's text mirror): the prose of an example payload, which a twin writes in its language.
var proseValue = regexp.MustCompile(`("(?:message|explanation)"\s*:\s*")(?:[^"\\]|\\.)*"|(\\"(?:message|explanation)\\"\s*:\s*\\")(?:[^"\\]|\\[^"])*\\"`)

// maskProse blanks the prose values proseValue finds, so that a twin's code block may carry a
// payload's message or explanation in its own language while every other character of the
// code stays as in the English file.
func maskProse(code string) string {
	return proseValue.ReplaceAllString(code, `$1$2…"`)
}

// checkCodeBlocks reports a different number of code blocks (at enLine and twLine), or else the
// first block that differs between the English file and the twin, the prose of a payload aside
// (maskProse).
func checkCodeBlocks(prefix, english string, enLine int, en []codeBlock, twin string, twLine int, tw []codeBlock, ps *Problems) {
	if len(en) != len(tw) {
		ps.add(twin, twLine, "%s%d code blocks here, %d in %s; code stays as in the English file", prefix, len(tw), len(en), at(english, enLine))
		return
	}
	for i := range en {
		if maskProse(en[i].text) != maskProse(tw[i].text) {
			ps.add(twin, tw[i].line, "%scode block %d differs from the one in %s; code stays as in the English file", prefix, i+1, at(english, en[i].line))
			return
		}
	}
}

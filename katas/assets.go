package katas

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
)

// Asset is a packet data file (assets/*.json): an array of flat objects, with the keys of the
// first object in the order written. Layers embed it as a table; the grader reads the same
// rows, so a policy table exists once (docs/packets.md, "Embedding a data asset").
type Asset struct {
	Columns []string
	Rows    []map[string]any
}

// ReadAsset reads and checks assets/<name>.json of the packet folder dir.
func ReadAsset(fsys fs.FS, dir, rel string) (*Asset, error) {
	file := path.Join(dir, rel)
	if path.IsAbs(rel) || slices.Contains(strings.Split(rel, "/"), "..") {
		return nil, errAt(path.Join(dir, "assets"), 0, "asset path %q leaves the packet's assets/ folder; name a file under assets/", rel)
	}
	if !strings.HasPrefix(path.Clean(rel), "assets/") {
		return nil, errAt(file, 0, "assets live under assets/")
	}
	if err := plainFile(fsys, file); err != nil {
		return nil, errAt(file, 0, "%s", strings.TrimPrefix(err.Error(), file+": "))
	}
	src, err := readJSON(fsys, file)
	var tooLarge *ParseError
	if errors.As(err, &tooLarge) {
		return nil, err
	}
	if err != nil {
		return nil, errAt(file, 0, "cannot read asset: %v", err)
	}
	var rows []map[string]any
	if err := decodeStrict(file, src, &rows); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, errAt(file, 1, "an asset is a non-empty JSON array of objects")
	}
	cols, err := firstObjectKeys(src)
	if err != nil {
		return nil, errAt(file, 1, "%v", err)
	}
	for i, r := range rows {
		for k, v := range r {
			switch v.(type) {
			case string, bool, float64, nil:
			default:
				return nil, errAt(file, jsonKeyLine(src, k), "row %d: %q must be a string, number, boolean or null", i+1, k)
			}
		}
	}
	return &Asset{Columns: cols, Rows: rows}, nil
}

// firstObjectKeys returns the keys of the array's first object in source order.
func firstObjectKeys(src []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, fmt.Errorf("an asset is a JSON array")
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("an asset's rows are JSON objects")
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, t.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// Markdown renders the asset as a GFM table.
func (a *Asset) Markdown() string {
	var b strings.Builder
	cell := func(v any) string {
		var s string
		switch x := v.(type) {
		case nil:
			s = "null"
		case string:
			s = x
		case float64:
			s = strconv.FormatFloat(x, 'f', -1, 64)
		default:
			s = fmt.Sprint(x)
		}
		return strings.NewReplacer("|", `\|`, "\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	}
	header := make([]string, len(a.Columns))
	for i, c := range a.Columns {
		header[i] = cell(c)
	}
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for range a.Columns {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	for _, r := range a.Rows {
		cells := make([]string, len(a.Columns))
		for i, c := range a.Columns {
			cells[i] = cell(r[c])
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return b.String()
}

const assetDirective = "kata:asset"

// assetRefs finds `<!-- kata:asset PATH -->` HTML blocks in a Markdown document and returns,
// for each, its byte range and path.
func assetRefs(src []byte) (refs []struct {
	start, end int
	path       string
}) {
	doc := parseMarkdown(src)
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		h, ok := c.(*ast.HTMLBlock)
		if !ok || h.Lines().Len() == 0 {
			continue
		}
		text := strings.TrimSpace(string(h.Lines().Value(src)))
		inner, ok := strings.CutPrefix(text, "<!--")
		if !ok {
			continue
		}
		inner, ok = strings.CutSuffix(inner, "-->")
		if !ok {
			continue
		}
		fields := strings.Fields(inner)
		if len(fields) == 2 && fields[0] == assetDirective {
			first := h.Lines().At(0)
			last := h.Lines().At(h.Lines().Len() - 1)
			refs = append(refs, struct {
				start, end int
				path       string
			}{first.Start, last.Stop, fields[1]})
		}
	}
	return refs
}

// AssetTwinName is the name of an asset's locale twin: "assets/typed-error.json", "es" →
// "assets/typed-error.es.json". The twin words the table in another language for the layer
// twins of that language; the grader reads only the English asset.
func AssetTwinName(rel, locale string) string {
	return strings.TrimSuffix(rel, ".json") + "." + locale + ".json"
}

// ReadAssetTwin reads the locale twin of the asset rel, when there is one: ok is false when the
// packet has none. A twin has the English asset's columns and rows in number, so that a
// translated table shows the same facts; one that does not is an error naming both counts.
func ReadAssetTwin(fsys fs.FS, dir, rel, locale string, english *Asset) (a *Asset, ok bool, err error) {
	twin := AssetTwinName(rel, locale)
	if _, err := fs.Stat(fsys, path.Join(dir, twin)); err != nil {
		return nil, false, nil
	}
	a, err = ReadAsset(fsys, dir, twin)
	if err != nil {
		return nil, false, err
	}
	if len(a.Columns) != len(english.Columns) || len(a.Rows) != len(english.Rows) {
		return nil, false, errAt(path.Join(dir, twin), 1, "%d columns and %d rows here, %d and %d in %s; a twin translates the table, it keeps its shape", len(a.Columns), len(a.Rows), len(english.Columns), len(english.Rows), path.Join(dir, rel))
	}
	return a, true, nil
}

// expandAssets replaces every asset directive in md with the asset's table; a layer twin
// (file named like knowledge/03-contract.es.md) gets the asset's twin of its locale when the
// packet has one (ReadAssetTwin).
func expandAssets(fsys fs.FS, dir, file string, md []byte) (string, error) {
	refs := assetRefs(md)
	if len(refs) == 0 {
		return string(md), nil
	}
	_, locale, isTwin := SplitTwin(path.Base(file))
	var b strings.Builder
	pos := 0
	for _, r := range refs {
		a, err := ReadAsset(fsys, dir, r.path)
		if err != nil {
			return "", errAt(file, lineOf(md, r.start), "embedding %s: %v", r.path, err)
		}
		if isTwin {
			ta, ok, err := ReadAssetTwin(fsys, dir, r.path, locale, a)
			if err != nil {
				return "", errAt(file, lineOf(md, r.start), "embedding %s: %v", AssetTwinName(r.path, locale), err)
			}
			if ok {
				a = ta
			}
		}
		b.Write(md[pos:r.start])
		b.WriteString(a.Markdown())
		pos = r.end
	}
	b.Write(md[pos:])
	return b.String(), nil
}

// categoriesFromAsset reads errorCategory → isRetryable from an asset's rows.
func categoriesFromAsset(a *Asset, file string) (map[string]bool, error) {
	out := map[string]bool{}
	for i, r := range a.Rows {
		c, ok1 := r["errorCategory"].(string)
		rt, ok2 := r["isRetryable"].(bool)
		if !ok1 || !ok2 {
			return nil, errAt(file, 0, "row %d needs errorCategory (string) and isRetryable (boolean)", i+1)
		}
		out[c] = rt
	}
	return out, nil
}

// policyFromAsset fills a client policy's unset numbers and escalate list from an asset whose
// rows are {"rule": name, <value column>: value} (e.g. assets/client-retry.json), and checks a
// "categories" row, if any, against the contract's categories.
func policyFromAsset(a *Asset, file string, p *Policy, categories map[string]bool) error {
	if len(a.Columns) < 2 {
		return errAt(file, 0, "a policy asset has a rule column and a value column")
	}
	valueCol := a.Columns[1]
	for _, r := range a.Rows {
		name, _ := r[a.Columns[0]].(string)
		v := r[valueCol]
		switch name {
		case "maxRetries":
			n, ok := v.(float64)
			if !ok {
				return errAt(file, 0, "maxRetries must be a number")
			}
			if p.MaxRetries == nil {
				i := int(n)
				p.MaxRetries = &i
			}
		case "baseDelaySeconds", "multiplier":
			n, ok := v.(float64)
			if !ok {
				return errAt(file, 0, "%s must be a number", name)
			}
			if name == "baseDelaySeconds" && p.BaseDelaySeconds == nil {
				p.BaseDelaySeconds = &n
			}
			if name == "multiplier" && p.Multiplier == nil {
				p.Multiplier = &n
			}
		case "escalate":
			s, _ := v.(string)
			if p.Escalate == nil {
				for _, e := range strings.Split(s, ",") {
					if e = strings.TrimSpace(e); e != "" {
						p.Escalate = append(p.Escalate, e)
					}
				}
			}
		case "categories":
			s, _ := v.(string)
			for _, pair := range strings.Split(s, ",") {
				f := strings.Fields(pair)
				if len(f) != 2 {
					return errAt(file, 0, "categories row: %q is not \"name true|false\"", pair)
				}
				want, ok := categories[f[0]]
				if !ok || strconv.FormatBool(want) != f[1] {
					return errAt(file, 0, "categories row says %s %s, but the contract says otherwise: the two must agree", f[0], f[1])
				}
			}
		}
	}
	return nil
}

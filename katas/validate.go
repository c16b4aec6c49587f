package katas

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// ScenarioIDs are the certification scenarios an exam item may be anchored in (issue 4, the
// fixed list of the Claude Certified Architect exam's scenarios).
var ScenarioIDs = []string{
	"customer-support", "multi-agent-research", "api-integration-reliability",
	"developer-productivity", "claude-code-ci", "structured-data-extraction", "code-generation",
}

// MinItems is the smallest item bank a shipped packet may have: three packets fill a 60-item
// mock exam.
const MinItems = 20

// ValidateOptions tune Validate.
type ValidateOptions struct {
	// SeedsDir, when set, is the folder holding the seeds coverage.md cites; every cited line
	// must then exist in its seed and hold text. Empty skips that check (the seeds are not part
	// of the repository).
	SeedsDir string
	// MinItems is the smallest item bank accepted; 0 means the package's MinItems (20). A
	// workshop packet of a handful of items lowers it (kata validate --min-items).
	MinItems int
	// Shims are the built-in shims a packet's "shims" may name (ShimsOf the embedded packets);
	// Validate uses its own file system's when nil.
	Shims *Shims
}

// Validation is the outcome of validating one packet folder.
type Validation struct {
	// Dir is the packet's folder in its file system.
	Dir string
	// Packet is the packet as far as it could be read; nil when packet.json could not be.
	Packet *Packet
	// Coverage is coverage.md's rows (nil when it is missing or has no table).
	Coverage []CoverageRow
	// Seeds sums up the coverage map per seed, in the order seeds are first cited.
	Seeds []SeedCoverage
	// Problems is every problem found, each with file and line; none means the packet is good.
	Problems Problems
	// Warnings are the item-writing cues found (docs/packets.md, "Item-writing checks"), each
	// with file and line; kata validate --strict counts them as problems.
	Warnings Problems
	// Exam is the path of the packet's exam.md as problems name it.
	Exam string
}

// SeedCoverage is the coverage map's size for one seed.
type SeedCoverage struct {
	Seed string
	// Title is the seed's title as coverage.md gives it ("" when it gives none: the seed is
	// known by its file name).
	Title string
	// Facts is the number of coverage rows citing the seed; Lines the distinct lines cited.
	Facts int
	Lines []int
	// TextLines is the number of non-blank lines of the seed, and Uncited those of them no row
	// cites; both known only when ValidateOptions.SeedsDir is set (TextLines is 0 otherwise).
	TextLines int
	Uncited   []int
}

// Validate checks every packet folder (a top-level folder holding packet.json) of fsys and
// returns one Validation per folder, in name order. source labels the packets as in Discover.
// An unreadable fsys is an error; a file system with no packet gives no validation.
func Validate(fsys fs.FS, source string, opts ValidateOptions) ([]Validation, error) {
	names, err := packetFolders(fsys)
	if err != nil {
		return nil, fmt.Errorf("reading packets from %s: %w", source, err)
	}
	if opts.Shims == nil {
		opts.Shims = ShimsOf(fsys)
	}
	var out []Validation
	for _, name := range names {
		out = append(out, ValidatePacket(fsys, name, source, opts))
	}
	return out, nil
}

// ValidateDir validates the packets of an OS folder, which is a folder of packet folders or one
// packet folder (see OpenDir). Problems name files under dir's path. A folder that cannot be
// read, or that holds no packet, is an error.
func ValidateDir(dir string, opts ValidateOptions) ([]Validation, error) {
	fsys, root, names, err := OpenDir(dir)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s holds no packet (a folder with packet.json, or folders of them)", dir)
	}
	var out []Validation
	for _, name := range names {
		v := ValidatePacket(fsys, name, dir, opts)
		v.Problems = v.Problems.Rooted(root)
		v.Warnings = v.Warnings.Rooted(root)
		v.Exam = Problems{{File: v.Exam}}.Rooted(root)[0].File
		out = append(out, v)
	}
	return out, nil
}

// ValidatePacket checks one packet folder: everything LoadPacket checks, and that the packet is
// complete and well written (docs/packets.md): the five layers, at least MinItems items, each
// anchored in one of ScenarioIDs, no rationale or option that refers to an option by letter or
// position, at least one trap table, a fixture file only for a graded part, a manifest whose
// scenarios are known, ready prompts whose Arguments sections parse, and a coverage.md whose
// every row cites a seed and line and points at an item, trap row or task step that exists.
// Every problem is reported.
func ValidatePacket(fsys fs.FS, dir, source string, opts ValidateOptions) Validation {
	p, ps := CheckPacket(fsys, dir, source)
	v := Validation{Dir: dir, Packet: p, Problems: ps, Exam: path.Join(dir, "exam.md")}
	if p == nil {
		return v
	}
	manifest := path.Join(dir, "packet.json")
	msrc, _ := fs.ReadFile(fsys, manifest)
	checkShims(manifest, msrc, &p.Manifest, opts.Shims, &v.Problems)
	// Locale twins (exam.es.md beside exam.md, …) keep the English file's ids, keys, options,
	// trap rows, steps and code: a difference names both files and lines.
	v.Problems = append(v.Problems, CheckTwins(fsys, dir)...)
	v.Problems = append(v.Problems, checkFixtureTwins(fsys, p)...)
	checkTexts(fsys, dir, p.Layers, &v.Problems)
	checkControls(fsys, dir, &v.Problems)
	for _, l := range LayerNames {
		if !slices.Contains(p.Layers, l) {
			v.Problems.add(manifest, jsonKeyLine(msrc, "layers"), "layer %q is missing; a packet has all of %s", l, strings.Join(LayerNames, ", "))
		}
	}
	for _, s := range p.Manifest.Scenarios {
		if !slices.Contains(ScenarioIDs, s) {
			v.Problems.add(manifest, jsonKeyLine(msrc, "scenarios"), "unknown scenario %q (known: %s)", s, strings.Join(ScenarioIDs, ", "))
		}
	}
	exam := path.Join(dir, "exam.md")
	minItems := MinItems
	if opts.MinItems > 0 {
		minItems = opts.MinItems
	}
	if _, err := fs.Stat(fsys, exam); err == nil && len(p.Items) < minItems {
		v.Problems.add(exam, 1, "%d items; a packet needs at least %d (a smaller workshop packet: kata validate --min-items N)", len(p.Items), minItems)
	}
	for _, it := range p.Items {
		if it.Scenario != "" && !slices.Contains(ScenarioIDs, it.Scenario) {
			v.Problems.add(exam, it.Line, "item %s: unknown scenario %q (known: %s)", it.ID, it.Scenario, strings.Join(ScenarioIDs, ", "))
		}
		if it.Choose > 1 && !saysChoose(it.Stem, it.Choose) {
			v.Problems.add(exam, it.Line, "item %s: a multiple-response stem says how many to pick (\"Choose %s.\")", it.ID, numberWord(it.Choose))
		}
		for _, o := range it.Options {
			if ref := letterRef(o.Rationale); ref != "" {
				v.Problems.add(exam, o.Line, "item %s: a rationale refers to an option by letter or position (%q), but options are shuffled; name the idea instead", it.ID, ref)
			}
			if ref := letterRef(o.Text); ref != "" {
				v.Problems.add(exam, o.Line, "item %s: an option refers to another by letter or position (%q), but options are shuffled", it.ID, ref)
			}
		}
	}
	traps := path.Join(dir, "traps.md")
	if _, err := fs.Stat(fsys, traps); err == nil && len(p.Traps) == 0 {
		v.Problems.add(traps, 1, "no trap table; a packet has at least one (## Heading, then Trap | Why it fails | Correct pattern)")
	}
	if entries, err := fs.ReadDir(fsys, path.Join(dir, "fixtures")); err == nil {
		for _, e := range entries {
			part, ok := strings.CutSuffix(e.Name(), ".json")
			if ok && strings.Contains(part, ".") {
				continue // a locale twin, checked by checkFixtureTwins
			}
			if ok && !slices.Contains(p.Graded, part) {
				v.Problems.add(path.Join(dir, "fixtures", e.Name()), 0, "fixtures for %q, which packet.json does not grade (graded: %s)", part, strings.Join(p.Graded, ", "))
			}
		}
	}
	validatePrompts(fsys, dir, p, &v.Problems)
	checkItemWriting(exam, p.Items, &v.Warnings)
	checkKeyPositions(exam, p.Items, &v.Warnings)
	checkBankCues(exam, p.Items, &v.Warnings)
	checkGiveAways(exam, p.Items, &v.Warnings)
	checkTwinBankCues(fsys, dir, &v.Warnings)
	v.Coverage, v.Seeds = validateCoverage(fsys, dir, p, opts, &v.Problems)
	sortProblems(v.Problems)
	sortProblems(v.Warnings)
	return v
}

// CheckNearDuplicates adds to each validation's warnings the items whose stems are
// near-duplicates (NearDuplicates) of another validated item's, or of an item of others: the
// packets a mock exam may draw beside the validated ones (a packet of others with the id of a
// validated one is skipped, as the validated one replaces it). Items of others are named by
// their source and id.
func CheckNearDuplicates(vs []Validation, others []*Packet) {
	var check []ItemRef
	owner := []int{}
	ids := map[string]bool{}
	for i, v := range vs {
		if v.Packet == nil {
			continue
		}
		ids[v.Packet.ID] = true
		for _, it := range v.Packet.Items {
			check = append(check, ItemRef{Kata: v.Packet.ID, File: v.Exam, Item: it})
			owner = append(owner, i)
		}
	}
	var rest []ItemRef
	for _, p := range others {
		if ids[p.ID] {
			continue
		}
		file := p.Source + ":" + path.Join(p.ID, "exam.md")
		for _, it := range p.Items {
			rest = append(rest, ItemRef{Kata: p.ID, File: file, Item: it})
		}
	}
	for _, w := range NearDuplicates(check, rest) {
		for k, r := range check {
			if r.File == w.File && r.Item.Line == w.Line {
				vs[owner[k]].Warnings = append(vs[owner[k]].Warnings, w)
				break
			}
		}
	}
	for i := range vs {
		sortProblems(vs[i].Warnings)
	}
}

// validateCoverage parses coverage.md, checks its references against p and, with a seeds
// folder, its seed lines, and sums up the map per seed.
func validateCoverage(fsys fs.FS, dir string, p *Packet, opts ValidateOptions, ps *Problems) ([]CoverageRow, []SeedCoverage) {
	file := path.Join(dir, "coverage.md")
	src, err := fs.ReadFile(fsys, file)
	if err != nil {
		ps.add(file, 0, "cannot read: %v; every packet maps its seed's facts to items, traps and steps", unwrapPathError(err))
		return nil, nil
	}
	if !markdownFit(src) {
		return nil, nil // reported by CheckPacket (checkFiles)
	}
	rows := parseCoverage(file, src, ps)
	checkRefs(file, rows, p, ps)
	var seeds []SeedCoverage
	index := map[string]int{}
	for _, r := range rows {
		if r.Seed == "" {
			continue
		}
		i, ok := index[r.Seed]
		if !ok {
			i = len(seeds)
			index[r.Seed] = i
			seeds = append(seeds, SeedCoverage{Seed: r.Seed})
		}
		seeds[i].Facts++
		if r.SeedLine > 0 && !slices.Contains(seeds[i].Lines, r.SeedLine) {
			seeds[i].Lines = append(seeds[i].Lines, r.SeedLine)
		}
	}
	titles := seedTitles(src)
	for i := range seeds {
		sort.Ints(seeds[i].Lines)
		seeds[i].Title = titles[seeds[i].Seed]
	}
	if opts.SeedsDir == "" {
		return rows, seeds
	}
	texts := map[string][][]byte{}
	for _, r := range rows {
		if r.Seed == "" || r.SeedLine < 1 || strings.ContainsAny(r.Seed, "/\\") {
			continue
		}
		lines, ok := texts[r.Seed]
		if !ok {
			b, err := readSeed(opts.SeedsDir, r.Seed)
			if err != nil {
				ps.add(file, r.Line, "seed %s: %v", r.Seed, err)
			}
			lines = bytes.Split(b, []byte("\n"))
			if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
				lines = lines[:len(lines)-1] // the final newline ends the last line
			}
			texts[r.Seed] = lines
			if err != nil {
				continue
			}
		}
		if lines == nil {
			continue
		}
		switch {
		case r.SeedLine > len(lines):
			ps.add(file, r.Line, "seed %s has %d lines; line %d does not exist", r.Seed, len(lines), r.SeedLine)
		case len(bytes.TrimSpace(lines[r.SeedLine-1])) == 0:
			ps.add(file, r.Line, "line %d of seed %s is blank; cite the line that states the fact", r.SeedLine, r.Seed)
		}
	}
	for i := range seeds {
		lines := texts[seeds[i].Seed]
		for n, l := range lines {
			if len(bytes.TrimSpace(l)) == 0 {
				continue
			}
			seeds[i].TextLines++
			if !slices.Contains(seeds[i].Lines, n+1) {
				seeds[i].Uncited = append(seeds[i].Uncited, n+1)
			}
		}
	}
	return rows, seeds
}

// readSeed reads a seed file from the seeds folder (a plain OS path, outside any packet).
func readSeed(dir, name string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no such file in %s", dir)
		}
		return nil, unwrapPathError(err)
	}
	return b, nil
}

// letterPatterns find a reference to an option by its letter or position: "option B",
// "answers a and c", "(c)", "the first option", "all of the above".
var letterPatterns = []*regexp.Regexp{
	// A lower-case "a" followed by a word is the article ("answers a missing id"), not a letter.
	regexp.MustCompile(`(?i:\b(?:options?|answers?|choices?))\s+(?:\([a-hA-H]\)|[b-hB-H]|A)(?:[^\p{L}\p{N}]|$)`),
	regexp.MustCompile(`(?i:\b(?:options?|answers?|choices?))\s+a(?:[.,;:!?)]|\s+(?:and|or|is|was)\b|$)`),
	regexp.MustCompile(`\([a-hA-H]\)`),
	regexp.MustCompile(`(?i)\b(?:first|second|third|fourth|fifth|last|previous|next|above|below|other two|other three)\s+(?:options?|answers?|choices?)\b`),
	regexp.MustCompile(`(?i)\b(?:all|none|both|neither|either) of the (?:above|below|previous|preceding)\b`),
}

// letterRef returns the first reference to an option by letter or position in s, or "".
func letterRef(s string) string {
	for _, re := range letterPatterns {
		if m := re.FindString(s); m != "" {
			return strings.TrimRight(m, " \t\n.,;:!?")
		}
	}
	return ""
}

// numberWord spells 2 … 9 as a word ("two"), other numbers as digits.
func numberWord(n int) string {
	words := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}
	if n >= 0 && n < len(words) {
		return words[n]
	}
	return fmt.Sprint(n)
}

// saysChoose reports whether a stem tells the learner to choose n options ("Choose two",
// "choose 2").
func saysChoose(stem string, n int) bool {
	s := strings.ToLower(stem)
	return strings.Contains(s, "choose "+numberWord(n)) || strings.Contains(s, fmt.Sprintf("choose %d", n))
}

// sortProblems orders problems by file, then line, keeping the order found within a line.
func sortProblems(ps Problems) {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].File != ps[j].File {
			return ps[i].File < ps[j].File
		}
		return ps[i].Line < ps[j].Line
	})
}

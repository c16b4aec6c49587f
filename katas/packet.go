package katas

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Packet is one kata packet: its manifest and the structure parsed from exam.md, traps.md,
// task.md and fixtures/. Layers are not held here: they are read on demand through the
// Library, which keeps at most one resident.
type Packet struct {
	Manifest
	// Source says where the packet came from: "embedded" or a directory path.
	Source string
	// Dir is the packet's folder inside its file system.
	Dir      string
	Items    []Item
	Traps    []TrapTable
	Task     Task
	Fixtures map[string]*FixtureSet
	// Scenarios are the client harness's hidden scenarios (fixtures/client.json), when the
	// packet grades a client.
	Scenarios *ScenarioSet
	// ConfigRules are the graded .mcp.json rules (fixtures/config.json), when the packet
	// grades config.
	ConfigRules *ConfigSet

	fsys fs.FS
	// shims are the built-in shims the Library that loaded the packet has (nil: none).
	shims *Shims
}

// FS returns the packet's own folder as a file system (templates, layers).
func (p *Packet) FS() fs.FS {
	sub, err := fs.Sub(p.fsys, p.Dir)
	if err != nil {
		panic(err) // p.Dir is always a valid path: it came from fs.ReadDir
	}
	return sub
}

// FixtureCount is the number of hidden fixtures over all graded parts.
func (p *Packet) FixtureCount() int {
	n := 0
	for _, s := range p.Fixtures {
		n += len(s.Fixtures)
	}
	if p.Scenarios != nil {
		n += len(p.Scenarios.Scenarios)
	}
	if p.ConfigRules != nil {
		n += len(p.ConfigRules.Rules)
	}
	return n
}

// TrapCount is the number of trap rows over all trap tables.
func (p *Packet) TrapCount() int {
	n := 0
	for _, t := range p.Traps {
		n += len(t.Rows)
	}
	return n
}

// Library is the set of packets found in one or more file systems, and the single resident
// layer. It is safe for concurrent use.
type Library struct {
	packets []*Packet
	// shims are the built-in protocol shims: those of the first file system added that has a
	// ShimsFolder (the embedded packets'), given to every packet, external ones too.
	shims *Shims

	mu       sync.Mutex
	resident *Layer
}

// Discover loads every packet folder (a top-level folder holding packet.json) of fsys.
// source labels where they came from ("embedded" or a path). The error, when not nil, is
// Problems listing every problem of every packet, each a *ParseError naming file and line; a
// packet with problems is skipped and the others are still loaded.
func Discover(fsys fs.FS, source string) (*Library, error) {
	l := &Library{}
	err := l.Add(fsys, source)
	return l, err
}

// Add loads the packets of another file system; a packet whose id is already present replaces
// it (later sources override earlier ones). A packet with problems is skipped and the others
// still load; the error, when not nil, is Problems naming every problem's file and line, or a
// plain error when fsys cannot be read.
func (l *Library) Add(fsys fs.FS, source string) error {
	names, err := packetFolders(fsys)
	if err != nil {
		return fmt.Errorf("reading packets from %s: %w", source, err)
	}
	if l.shims == nil {
		l.shims = ShimsOf(fsys)
	}
	return l.addPackets(fsys, source, "", names)
}

// AddDir loads the packets of an OS folder, labelled with dir as their Source. dir is either a
// folder of packet folders or one packet folder (it holds packet.json). As with Add, later
// packets override earlier ones with the same id, a packet with problems is skipped, and the
// error is Problems whose file names start with dir's path; a folder that does not exist or
// cannot be read is a plain error.
func (l *Library) AddDir(dir string) error {
	fsys, root, names, err := OpenDir(dir)
	if err != nil {
		return err
	}
	return l.addPackets(fsys, dir, root, names)
}

func (l *Library) addPackets(fsys fs.FS, source, root string, names []string) error {
	var ps Problems
	for _, name := range names {
		p, probs := CheckPacket(fsys, name, source)
		if p != nil {
			file := path.Join(name, "packet.json")
			src, _ := fs.ReadFile(fsys, file)
			checkShims(file, src, &p.Manifest, l.shims, &probs)
		}
		if len(probs) > 0 {
			ps = append(ps, probs.Rooted(root)...)
			continue
		}
		p.shims = l.shims
		l.put(p)
	}
	return ps.Err()
}

// OpenDir opens an OS folder of packets for reading: fsys is the folder holding the packets,
// root its path (to prefix problem file names with), and names the packet folders to read — all
// of those holding packet.json, or just one when dir is itself a packet folder. A dir that does
// not exist or is not a folder is an error.
func OpenDir(dir string) (fsys fs.FS, root string, names []string, err error) {
	dir = filepath.Clean(dir)
	st, err := os.Stat(dir)
	if err != nil {
		return nil, "", nil, fmt.Errorf("packets folder %s: %w", dir, unwrapPathError(err))
	}
	if !st.IsDir() {
		return nil, "", nil, fmt.Errorf("packets folder %s: not a folder", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "packet.json")); err == nil {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, "", nil, err
		}
		root := filepath.Dir(dir)
		if filepath.Base(dir) != filepath.Base(abs) { // "." or ".." name no folder
			root = filepath.Dir(abs)
		}
		return os.DirFS(filepath.Dir(abs)), root, []string{filepath.Base(abs)}, nil
	}
	fsys = os.DirFS(dir)
	names, err = packetFolders(fsys)
	if err != nil {
		return nil, "", nil, fmt.Errorf("packets folder %s: %w", dir, unwrapPathError(err))
	}
	return fsys, dir, names, nil
}

// packetFolders lists the top-level folders of fsys that hold a packet.json, in name order.
func packetFolders(fsys fs.FS) ([]string, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, err := fs.Stat(fsys, path.Join(e.Name(), "packet.json")); err == nil {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

func (l *Library) put(p *Packet) {
	for i, q := range l.packets {
		if q.ID == p.ID {
			l.packets[i] = p
			return
		}
	}
	l.packets = append(l.packets, p)
	sort.Slice(l.packets, func(i, j int) bool { return l.packets[i].ID < l.packets[j].ID })
}

// Packets returns the packets sorted by id.
func (l *Library) Packets() []*Packet { return l.packets }

// Get returns the packet with the given id.
func (l *Library) Get(id string) (*Packet, bool) {
	for _, p := range l.packets {
		if p.ID == id {
			return p, true
		}
	}
	return nil, false
}

// IDs lists the packet ids, for "unknown kata" messages.
func (l *Library) IDs() []string {
	ids := make([]string, len(l.packets))
	for i, p := range l.packets {
		ids[i] = p.ID
	}
	return ids
}

// LoadPacket parses the packet in folder dir of fsys: packet.json, exam.md, traps.md, task.md
// and fixtures/*.json, and checks that every layer folder exists and holds Markdown. When
// anything is wrong it returns no packet and every problem found, as Problems (each a
// *ParseError with file and line).
func LoadPacket(fsys fs.FS, dir, source string) (*Packet, error) {
	p, ps := CheckPacket(fsys, dir, source)
	if len(ps) > 0 {
		return nil, ps
	}
	return p, nil
}

// CheckPacket parses the packet in folder dir of fsys like LoadPacket, but goes on past
// problems: it returns every problem found and the packet as far as it could be read (nil only
// when packet.json cannot be decoded). A packet returned with problems must not be used for
// anything but reporting.
func CheckPacket(fsys fs.FS, dir, source string) (*Packet, Problems) {
	var ps Problems
	read := func(name string) ([]byte, string, bool) {
		file := path.Join(dir, name)
		b, err := fs.ReadFile(fsys, file)
		if err != nil {
			ps.add(file, 0, "cannot read: %v", unwrapPathError(err))
			return nil, file, false
		}
		return b, file, true
	}
	p := &Packet{Source: source, Dir: dir, fsys: fsys, Fixtures: map[string]*FixtureSet{}}
	if src, file, ok := read("exam.md"); ok {
		p.Items = parseExam(file, src, &ps)
	}
	if src, file, ok := read("traps.md"); ok {
		p.Traps = parseTraps(file, src, &ps)
	}
	taskOK := false
	if src, file, ok := read("task.md"); ok {
		n := len(ps)
		p.Task = parseTask(file, src, &ps)
		taskOK = len(ps) == n
	}
	manifestSrc, manifestFile, ok := read("packet.json")
	if !ok {
		return nil, ps
	}
	m := parseManifest(manifestFile, manifestSrc, &ps)
	if m == nil {
		return nil, ps
	}
	if m.ID != dir {
		ps.add(manifestFile, jsonKeyLine(manifestSrc, "id"), "id %q differs from the folder name %q", m.ID, dir)
	}
	if rel := m.Contract.CategoriesFrom; rel != "" {
		if cats, err := contractCategories(fsys, dir, rel); err != nil {
			ps.addErr(path.Join(dir, rel), err)
		} else {
			if m.Contract.Categories != nil && !maps.Equal(m.Contract.Categories, cats) {
				ps.add(manifestFile, jsonKeyLine(manifestSrc, "categories"), "contract.categories disagrees with %s; keep one source", rel)
			}
			m.Contract.Categories = cats
		}
	}
	p.Manifest = *m
	for _, layer := range m.Layers {
		if !slices.Contains(LayerNames, layer) {
			continue // reported by parseManifest
		}
		files, err := layerFiles(fsys, dir, layer)
		switch {
		case err != nil:
			ps.add(manifestFile, jsonKeyLine(manifestSrc, "layers"), "layer %q: the folder %s is missing", layer, path.Join(dir, layer))
		case len(files) == 0:
			ps.add(manifestFile, jsonKeyLine(manifestSrc, "layers"), "layer %q: the folder %s has no Markdown files", layer, path.Join(dir, layer))
		}
	}
	for _, part := range m.Graded {
		if !slices.Contains(gradedParts, part) {
			continue // reported by parseManifest
		}
		src, file, ok := read(path.Join("fixtures", part+".json"))
		if !ok {
			continue
		}
		// checkStep reports a fixture, scenario or rule whose task step task.md lacks; when
		// task.md itself is broken its problems are reported already, and this would be noise.
		checkStep := func(kind, id string, n int) {
			if _, ok := p.Task.Step(n); !ok && taskOK {
				ps.add(file, fixtureLine(src, id), "%s %q grades task step %d, which task.md does not have", kind, id, n)
			}
		}
		switch part {
		case "config":
			cs := parseConfigRules(file, src, &ps)
			if cs == nil {
				continue
			}
			for _, r := range cs.Rules {
				checkStep("rule", r.ID, r.Task)
			}
			p.ConfigRules = cs
		case "client":
			sc := parseScenarios(file, src, m, &ps)
			if sc == nil {
				continue
			}
			if rel := sc.Policy.From; rel != "" {
				if err := clientPolicy(fsys, dir, rel, &sc.Policy, m.Contract.Categories); err != nil {
					ps.addErr(path.Join(dir, rel), err)
				}
			}
			for _, s := range sc.Scenarios {
				checkStep("scenario", s.ID, s.Task)
			}
			p.Scenarios = sc
		case "server":
			set := parseFixtures(file, src, m, &ps)
			if set == nil {
				continue
			}
			for _, f := range set.Fixtures {
				checkStep("fixture", f.ID, f.Task)
			}
			p.Fixtures[part] = set
		}
	}
	for _, lang := range m.Languages {
		if !idPattern.MatchString(lang) {
			continue // reported by parseManifest
		}
		if _, err := fs.Stat(fsys, path.Join(dir, "templates", lang)); err != nil {
			ps.add(manifestFile, jsonKeyLine(manifestSrc, "languages"), "language %q has no templates/%s folder", lang, lang)
			continue
		}
		if len(m.Graded) == 0 {
			continue
		}
		// a graded workspace starts with the two files the grader reads (Init drops ".tmpl")
		for _, name := range []string{"kata.json", ".mcp.json"} {
			rel := path.Join("templates", lang, name)
			if !exists(fsys, path.Join(dir, rel)) && !exists(fsys, path.Join(dir, rel+".tmpl")) {
				ps.add(manifestFile, jsonKeyLine(manifestSrc, "languages"), "templates/%s has no %s: a graded workspace needs it (the grader reads it to launch the learner's code)", lang, name)
			}
		}
	}
	return p, ps
}

// exists reports whether name is in fsys.
func exists(fsys fs.FS, name string) bool {
	_, err := fs.Stat(fsys, name)
	return err == nil
}

// contractCategories reads contract.categories_from: errorCategory → isRetryable from an asset.
func contractCategories(fsys fs.FS, dir, rel string) (map[string]bool, error) {
	a, err := ReadAsset(fsys, dir, rel)
	if err != nil {
		return nil, err
	}
	return categoriesFromAsset(a, path.Join(dir, rel))
}

// clientPolicy fills the client's default policy from the asset it names (policy.from).
func clientPolicy(fsys fs.FS, dir, rel string, p *Policy, categories map[string]bool) error {
	a, err := ReadAsset(fsys, dir, rel)
	if err != nil {
		return err
	}
	if err := policyFromAsset(a, path.Join(dir, rel), p, categories); err != nil {
		return err
	}
	if p.MaxRetries == nil || p.BaseDelaySeconds == nil || p.Multiplier == nil {
		return errAt(path.Join(dir, rel), 0, "the policy asset must give maxRetries, baseDelaySeconds and multiplier")
	}
	return nil
}

// unwrapPathError drops the *fs.PathError wrapper (whose path the problem already names).
func unwrapPathError(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}

// layerFiles lists the Markdown files directly in a layer folder, in name order. Locale twins
// (SplitTwin: "01-model.es.md") are not layer pages of their own and are left out.
func layerFiles(fsys fs.FS, dir, layer string) ([]string, error) {
	entries, err := fs.ReadDir(fsys, path.Join(dir, layer))
	if err != nil {
		return nil, errAt(path.Join(dir, layer), 0, "layer folder is missing")
	}
	var files []string
	for _, e := range entries {
		if _, _, twin := SplitTwin(e.Name()); twin {
			continue
		}
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
			files = append(files, e.Name())
		}
	}
	sort.Strings(files)
	return files, nil
}

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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	// testTexts are the tests' names and rules from the fixture twins of Locale, by test id
	// (TestText); nil for English.
	testTexts map[string]TestText

	// Locale is the language the packet is read in (Library.Localized): "" for English, else an
	// ISO 639-1 code such as "es". Fallback lists the files of exam.md, traps.md, task.md and
	// fixtures/<part>.json read in English all the same (no locale twin, or one that disagrees
	// with its English file).
	Locale   string
	Fallback []string

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
//
// A packet is parsed (exam.md, traps.md, task.md, fixtures/) when it is added, so that its
// problems are reported then, unless it comes through AddCached (a file system the program
// provides) and the index kept for it (IndexFile) vouches for exactly its files: such a packet
// validated when the index was written, and only its manifest is read at start; the rest is
// parsed on first use (Get, Packets), and its counts come from the index (Entries). The
// embedded packets load that way, which keeps the app's start and kata list from parsing every
// packet; a folder added with Add or AddDir is always parsed whole.
type Library struct {
	entries []*entry // by id
	// shims are the built-in protocol shims: those of the first file system added that has a
	// ShimsFolder (the embedded packets'), given to every packet, external ones too.
	shims *Shims
	// locale is the language the library reads packets in (Localized): "" for English.
	locale string
	// res holds the resident layer, shared by the library and its localized views.
	res *residency
}

// residency is the single resident layer of a library and of all its localized views.
type residency struct {
	mu       sync.Mutex
	resident *Layer
}

// entry is one packet of the library: parsed, or known by its manifest until first use.
type entry struct {
	id string
	// packet is the parsed packet; nil until parsed, and for a lazy packet that failed to
	// parse (probs then says why).
	packet *Packet
	// lazy is the packet's state before it is parsed (nil once added parsed).
	lazy *lazyPacket

	// localized holds the packet as read in each locale asked for (Library.Localized), made on
	// first use from the parsed packet.
	locMu     sync.Mutex
	localized map[string]*Packet
}

// lazyPacket is what is known of a packet the index vouches for, before it is parsed.
type lazyPacket struct {
	fsys           fs.FS
	dir, source    string
	manifest       Manifest
	counts         Counts
	once           sync.Once
	done           atomic.Bool // once has run
	packet         *Packet
	probs          Problems
	addedWithShims *Shims
}

// parsed returns the entry's packet, parsing it on first use; nil when it has problems.
func (e *entry) parsed() *Packet {
	if e.lazy == nil {
		return e.packet
	}
	lp := e.lazy
	lp.once.Do(func() {
		defer lp.done.Store(true)
		p, probs := CheckPacket(lp.fsys, lp.dir, lp.source)
		if p != nil {
			file := path.Join(lp.dir, "packet.json")
			src, _ := fs.ReadFile(lp.fsys, file)
			checkShims(file, src, &p.Manifest, lp.addedWithShims, &probs)
		}
		if len(probs) > 0 {
			lp.probs = probs
			return
		}
		p.shims = lp.addedWithShims
		lp.packet = p
	})
	return lp.packet
}

// Discover loads every packet folder (a top-level folder holding packet.json) of fsys.
// source labels where they came from ("embedded" or a path). The error, when not nil, is
// Problems listing every problem of every packet, each a *ParseError naming file and line; a
// packet with problems is skipped and the others are still loaded.
func Discover(fsys fs.FS, source string) (*Library, error) {
	l := NewLibrary()
	err := l.Add(fsys, source)
	return l, err
}

// NewLibrary returns an empty library; Add, AddCached and AddDir fill it.
func NewLibrary() *Library { return &Library{res: &residency{}} }

// Add loads the packets of another file system; a packet whose id is already present replaces
// it (later sources override earlier ones). A packet with problems is skipped and the others
// still load; the error, when not nil, is Problems naming every problem's file and line, or a
// plain error when fsys cannot be read.
func (l *Library) Add(fsys fs.FS, source string) error {
	return l.AddCached(fsys, source, "")
}

// AddCached is Add for a file system the program itself provides (the embedded packets), with
// the index file at cache (IndexFile; "" for none): a packet the index vouches for is read by
// its manifest now and parsed on first use (see Library). When a packet had to be parsed (the
// first start, or a new or changed packet), the index is rewritten with every packet that
// loaded; a cache that cannot be written only costs the next start its parsing.
func (l *Library) AddCached(fsys fs.FS, source, cache string) error {
	names, err := packetFolders(fsys)
	if err != nil {
		return fmt.Errorf("reading packets from %s: %w", source, err)
	}
	if l.shims == nil {
		l.shims = ShimsOf(fsys)
	}
	var index, fresh map[string]indexEntry
	if cache != "" {
		index, fresh = readIndex(cache), map[string]indexEntry{}
	}
	err = l.addPackets(fsys, source, "", names, index, fresh)
	if len(fresh) > 0 {
		for name, ie := range index {
			if _, ok := fresh[name]; !ok && slices.Contains(names, name) {
				fresh[name] = ie
			}
		}
		writeIndex(cache, fresh) // a cache: a failure only costs the next start its parsing
	}
	return err
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
	return l.addPackets(fsys, dir, root, names, nil, nil)
}

// addPackets loads the packet folders names of fsys. index (the program's own cache, for a file
// system the program provides) may vouch for packets, which then load by their manifests alone;
// a folder of packets from anyone gets none and is parsed whole, so its problems are reported
// when it is added. A packet parsed without a problem is entered in fresh, when not nil, with
// its digest and counts.
func (l *Library) addPackets(fsys fs.FS, source, root string, names []string, index, fresh map[string]indexEntry) error {
	var ps Problems
	for _, name := range names {
		if lp := l.vouched(fsys, source, name, index); lp != nil {
			l.put(&entry{id: lp.manifest.ID, lazy: lp})
			continue
		}
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
		l.put(&entry{id: p.ID, packet: p})
		if fresh != nil {
			if d, err := PacketDigest(fsys, name); err == nil {
				fresh[name] = indexEntry{Digest: d, Counts: p.Counts()}
			}
		}
	}
	return ps.Err()
}

// vouched returns the lazy entry of packet folder name when the index vouches for its files
// (the same digest) and its manifest reads; nil means: parse it now.
func (l *Library) vouched(fsys fs.FS, source, name string, index map[string]indexEntry) *lazyPacket {
	ie, ok := index[name]
	if !ok {
		return nil
	}
	if d, err := PacketDigest(fsys, name); err != nil || d != ie.Digest {
		return nil
	}
	file := path.Join(name, "packet.json")
	src, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil
	}
	var probs Problems
	m := parseManifest(file, src, &probs)
	if m == nil || len(probs) > 0 || m.ID != name {
		return nil
	}
	return &lazyPacket{fsys: fsys, dir: name, source: source, manifest: *m, counts: ie.Counts, addedWithShims: l.shims}
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

// put adds e, replacing the entry with its id, and keeps the entries sorted by id. Only Add
// and AddDir call it, before the library is shared.
func (l *Library) put(e *entry) {
	for i, q := range l.entries {
		if q.id == e.id {
			l.entries[i] = e
			return
		}
	}
	l.entries = append(l.entries, e)
	sort.Slice(l.entries, func(i, j int) bool { return l.entries[i].id < l.entries[j].id })
}

// Packets returns the packets sorted by id, parsing those not parsed yet (side by side); a
// packet the index vouched for that fails to parse is left out (Problems says why). In a
// localized view (Localized) each is the packet as read in its locale.
func (l *Library) Packets() []*Packet {
	var wg sync.WaitGroup
	for _, e := range l.entries {
		if e.lazy != nil && !e.lazy.done.Load() || l.locale != "" {
			wg.Go(func() { l.packet(e) })
		}
	}
	wg.Wait()
	out := make([]*Packet, 0, len(l.entries))
	for _, e := range l.entries {
		if p := l.packet(e); p != nil {
			out = append(out, p)
		}
	}
	return out
}

// Get returns the packet with the given id, parsing it on first use; in a localized view
// (Localized), the packet as read in its locale.
func (l *Library) Get(id string) (*Packet, bool) {
	for _, e := range l.entries {
		if e.id == id {
			p := l.packet(e)
			return p, p != nil
		}
	}
	return nil, false
}

// IDs lists the packet ids, for "unknown kata" messages; it parses nothing.
func (l *Library) IDs() []string {
	ids := make([]string, len(l.entries))
	for i, e := range l.entries {
		ids[i] = e.id
	}
	return ids
}

// Entry is a packet as the library lists it without parsing more than its manifest: the
// manifest, where it came from, and its counts.
type Entry struct {
	Manifest
	// Source says where the packet came from: "embedded" or a directory path.
	Source string
	Counts Counts
}

// Entries lists the packets sorted by id, as kata list and the app's catalog show them:
// packets not parsed yet give their manifest and the counts their index gives, and are not
// parsed. In a localized view the title and summary are the locale's (Manifest.In).
func (l *Library) Entries() []Entry {
	out := make([]Entry, 0, len(l.entries))
	for _, e := range l.entries {
		if lp := e.lazy; lp != nil {
			out = append(out, Entry{Manifest: lp.manifest.In(l.locale), Source: lp.source, Counts: lp.counts})
			continue
		}
		out = append(out, Entry{Manifest: e.packet.Manifest.In(l.locale), Source: e.packet.Source, Counts: e.packet.Counts()})
	}
	return out
}

// Problems lists the problems of packets the index vouched for that then failed to parse
// (none unless the index is stale in a way its digest missed); such packets are left out.
func (l *Library) Problems() Problems {
	var ps Problems
	for _, e := range l.entries {
		if e.lazy != nil {
			e.parsed()
			ps = append(ps, e.lazy.probs...)
		}
	}
	return ps
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
		if strings.HasSuffix(name, ".md") {
			// checked before it is parsed: a parse of unbounded nesting is slow
			n := len(ps)
			checkMarkdownText(file, b, &ps)
			if len(ps) > n {
				return nil, file, false
			}
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
	checkFiles(fsys, dir, &ps)
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
	checkPoints(p, manifestFile, manifestSrc, taskOK, &ps)
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

// checkPoints reports each step that packet.json's points weighs but task.md does not have,
// or that no graded test grades (its points could never be earned).
func checkPoints(p *Packet, file string, src []byte, taskOK bool, ps *Problems) {
	graded := p.GradedSteps()
	for _, n := range p.pointSteps() {
		line := jsonKeyLine(src, strconv.Itoa(n))
		switch _, ok := p.Task.Step(n); {
		case !ok && taskOK:
			ps.add(file, line, "points: task.md has no step %d", n)
		case ok && !graded[n]:
			ps.add(file, line, "points: no graded test grades step %d, so its points could never be earned", n)
		}
	}
}

// GradedSteps returns the task steps that graded tests grade: each fixture's, scenario's and
// config rule's step, and step 1 when the server is graded (its tools/list test).
func (p *Packet) GradedSteps() map[int]bool {
	steps := map[int]bool{}
	grades := func(part string) bool { return slices.Contains(p.Graded, part) }
	if set := p.Fixtures["server"]; set != nil && grades("server") {
		steps[1] = true
		for _, f := range set.Fixtures {
			steps[f.Task] = true
		}
	}
	if p.Scenarios != nil && grades("client") {
		for _, s := range p.Scenarios.Scenarios {
			steps[s.Task] = true
		}
	}
	if p.ConfigRules != nil && grades("config") {
		for _, r := range p.ConfigRules.Rules {
			steps[r.Task] = true
		}
	}
	return steps
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

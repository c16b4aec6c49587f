package grader

// A tool the packet declares as data (packet.json "tool_definitions", katas.ToolDefinition):
// what the Orders API does at its endpoint, and how a fixture of it is drawn from the seed —
// a valid argument object from the input schema, broken by the keywords the fixture lists
// (every form of each tried in every run), with secret-like values where it sets them
// (docs/grading.md#declared-tools).

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"

	"github.com/kata-mcp/kata/katas"
	"github.com/kata-mcp/kata/katas/schema"
)

// declaredSpec is the part of a case of a declared tool's fixture that every run covers: the
// form that breaks each argument of the fixture's violate list, and the secret-like form of
// its "{secret_like}" values.
type declaredSpec struct {
	def *katas.ToolDefinition
	// forms has one form per entry of the fixture's Violate, in its order.
	forms []schema.Form
	// secret is the form of every "{secret_like}" value; nil when the fixture sets none.
	secret *secretForm
	// optional says the valid arguments carry every optional argument: the fixture's first
	// case (and every other one after it) does, the others carry none, so that both shapes
	// are graded in every run whatever the seed (docs/grading.md#declared-tools).
	optional bool
}

// secretForm is one shape of a secret-like string (docs/grading.md#secret-like), its name the
// same in every run and its characters drawn.
type secretForm struct {
	name string
	draw func(rng *rand.Rand) string
}

// secretForms are the shapes a "{secret_like}" value takes, every one in every run.
var secretForms = []secretForm{
	{"a Stripe-style key", func(rng *rand.Rand) string { return "sk_live_" + alnum(rng, 24) }},
	{"a GitHub token", func(rng *rand.Rand) string { return "ghp_" + alnum(rng, 36) }},
	{"an AWS key id", func(rng *rand.Rand) string { return "AKIA" + strings.ToUpper(alnum(rng, 16)) }},
	{"a long token", func(rng *rand.Rand) string { return alnum(rng, 40) }},
}

// secretPrefixes start a secret-like string (docs/grading.md#secret-like).
var secretPrefixes = []string{"sk_", "sk-", "ghp_", "gho_", "github_pat_", "xoxb-", "xoxp-", "AKIA"}

// secretLike reports whether v is a string a server must redact: one starting with a known
// credential prefix, or 32 characters or more without white space.
func secretLike(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	for _, p := range secretPrefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return len([]rune(s)) >= 32 && !strings.ContainsFunc(s, unicode.IsSpace)
}

// alnum draws n lower-case letters and digits.
func alnum(rng *rand.Rand, n int) string {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[rng.IntN(len(chars))]
	}
	return string(b)
}

// declaredCases lists the calls of a declared tool's fixture, the same list under every seed:
// as many as its longest list of forms (the violate entries' forms, the secret-like forms,
// its statuses), case j taking form j of each list (j modulo the list's length), so every
// form of every list is tried in every run.
func declaredCases(f katas.Fixture, def *katas.ToolDefinition) []caseSpec {
	s := def.Schema()
	var lists [][]schema.Form
	for _, v := range f.Violate {
		field, keyword, _ := katas.ParseViolate(v)
		forms, _ := s.Forms(field, keyword) // katas validated the entry
		lists = append(lists, forms)
	}
	secrets := slices.Contains(slices.Collect(maps.Values(f.Set)), any(katas.SecretLike))
	n := 1
	for _, l := range lists {
		n = max(n, len(l))
	}
	if secrets {
		n = max(n, len(secretForms))
	}
	if len(f.Backend.Status) > 1 {
		n = max(n, len(f.Backend.Status))
	}
	out := make([]caseSpec, n)
	for j := range out {
		ds := &declaredSpec{def: def, optional: j%2 == 0}
		for _, l := range lists {
			ds.forms = append(ds.forms, l[j%len(l)])
		}
		if secrets {
			ds.secret = &secretForms[j%len(secretForms)]
		}
		out[j].declared = ds
		if st := f.Backend.Status; len(st) > 1 {
			out[j].status = st[j%len(st)]
		}
	}
	return out
}

// drawDeclared draws one case of a declared tool's fixture: a valid argument object from the
// schema (the id argument the case's own order id), then each violate entry's form and each
// "set" value applied; trueArgs keeps the valid object, which the scripted model puts back.
func (d *drawer) drawDeclared(f katas.Fixture, c caseSpec) drawn {
	ds := c.declared
	s := ds.def.Schema()
	dr := drawn{orderID: d.orderID(), customerID: d.customerID(), spec: c, def: ds.def}
	valid := s.Draw(d.rng, ds.optional)
	valid[ds.def.Endpoint.ID] = dr.orderID
	args := maps.Clone(valid)
	var variant, label []string
	touched := func(field, form string) {
		variant = append(variant, field+": "+form)
		v, ok := args[field]
		label = append(label, field+" "+map[bool]string{true: jsonText(v), false: "left out"}[ok])
	}
	for i, v := range f.Violate {
		field, keyword, _ := katas.ParseViolate(v)
		s.Apply(ds.forms[i], field, keyword, d.rng, args)
		touched(field, ds.forms[i].Name)
	}
	for _, k := range slices.Sorted(maps.Keys(f.Set)) {
		v := f.Set[k]
		if v == katas.SecretLike {
			sec := ds.secret.draw(d.rng)
			args[k] = sec
			dr.secrets = append(dr.secrets, sec)
			touched(k, ds.secret.name)
			continue
		}
		args[k] = v
		if p := s.Properties[k]; p != nil && len(p.Check(v)) == 0 {
			valid[k] = v
		}
	}
	dr.args, dr.trueArgs = args, valid
	switch {
	case c.status != 0:
		dr.label = fmt.Sprintf("HTTP %d", c.status)
		dr.variant = dr.label
	case len(variant) > 0:
		dr.variant = strings.Join(variant, ", ")
		dr.label = "(" + strings.Join(label, ", ") + ")"
	}
	b := f.Backend
	beh := &behaviour{kind: b.Kind, retryAfter: b.RetryAfter, status: c.status, refundOnly: true}
	if c.status == 0 && len(b.Status) > 0 {
		beh.status = b.Status[0]
	}
	if beh.status == 429 {
		beh.delay = d.between(2, 120)
	}
	beh.order = d.order(dr.customerID)
	beh.order[ds.def.Endpoint.ID] = dr.orderID
	beh.created = d.creation(ds.def)
	if b.Kind != katas.BackendNone && b.Kind != katas.BackendRefused {
		dr.beh, dr.id = beh, dr.orderID
	}
	if f.Repair {
		dr.repairBeh = &behaviour{kind: katas.BackendOK, refundOnly: true, order: beh.order, created: d.creation(ds.def)}
	}
	return dr
}

// creation is what a declared tool's POST creates: its id key ("return_id") and drawn id
// ("RT-40213"), and the argument names its body echoes.
type creation struct {
	idKey, id string
	props     []string
}

// creation draws what the endpoint of def creates: an id of the first two consonants of the
// success key in upper case ("return" → "RT"), a dash and five digits.
func (d *drawer) creation(def *katas.ToolDefinition) *creation {
	var prefix []rune
	for _, r := range strings.ToUpper(def.Success) {
		if len(prefix) < 2 && unicode.IsLetter(r) && !strings.ContainsRune("AEIOU", r) {
			prefix = append(prefix, r)
		}
	}
	return &creation{
		idKey: def.Success + "_id",
		id:    fmt.Sprintf("%s-%d", string(prefix), 10000+d.rng.IntN(90000)),
		props: def.Schema().Names(),
	}
}

// declare tells the service the endpoints of the packet's declared tools.
func (a *ordersAPI) declare(defs map[string]*katas.ToolDefinition) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.declared = map[string]string{}
	for _, d := range defs {
		a.declared[d.Endpoint.Path] = d.Endpoint.ID
	}
}

// postBody is the 201 body of a POST with body: a refund's, or for a declared tool the
// arguments of its schema as received, its drawn id and "status": "open" (noted in b.sent).
func (a *ordersAPI) postBody(b *behaviour, body map[string]any) map[string]any {
	if b.created == nil {
		return b.refund
	}
	out := map[string]any{b.created.idKey: b.created.id, "status": "open"}
	for _, k := range b.created.props {
		if v, ok := body[k]; ok {
			out[k] = v
		}
	}
	a.mu.Lock()
	b.sent = out
	a.mu.Unlock()
	return out
}

// sentFor returns the last body a declared tool's POST for id was answered with, or nil.
func (a *ordersAPI) sentFor(id string) map[string]any {
	a.mu.Lock()
	defer a.mu.Unlock()
	if b := a.orders[id]; b != nil {
		return b.sent
	}
	return nil
}

// declaredSchemaGaps lists what a server's inputSchema for a declared tool lacks of the
// declaration's: each property ("properties.quantity") and each required argument
// ("required: email"); none for a built-in tool (def nil).
func declaredSchemaGaps(listed any, def *katas.ToolDefinition) []string {
	if def == nil || def.Schema() == nil {
		return nil
	}
	b, _ := json.Marshal(listed)
	var got struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	json.Unmarshal(b, &got) // a schema that is no object lacks everything below
	var out []string
	s := def.Schema()
	for _, n := range s.Names() {
		if _, ok := got.Properties[n]; !ok {
			out = append(out, "properties."+n)
		}
	}
	for _, n := range s.Required {
		if !slices.Contains(got.Required, n) {
			out = append(out, "required: "+n)
		}
	}
	return out
}

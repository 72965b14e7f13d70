package config

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// entry is one key, built from one Settings field and its tags.
type entry struct {
	key    string // "agent.maxIterations"
	env    string // "OLLY_AGENT_MAX_ITERATIONS"
	pos    int    // position in registry.entries (declaration order)
	index  []int  // field path from Settings
	kind   kind
	def    any
	doc    string
	secret bool
	// userOnly keys are refused in project files (see ErrUserOnly).
	userOnly bool

	min, max       float64 // inclusive; milliseconds for durations, items for lists
	hasMin, hasMax bool
	enum           []string
	checkName      string
	check          func(string) string // returns a problem, or ""
}

// registry is every key, derived once from the Settings tags.
type registry struct {
	entries  []*entry
	byKey    map[string]*entry
	byEnv    map[string]*entry
	groups   map[string]bool   // group keys: "agent", "chatMode", …
	renames  map[string]string // old group → new group: "askMode" → "chatMode"
	defaults Settings
}

// keys is the registry, built on first use. It is derived from type
// information alone and never changes afterwards, so sharing it is safe; it
// is built once because every olly start loads settings.
var keys = sync.OnceValue(buildRegistry)

// scope is an enclosing group whose tags may override its children's tags
// ("maxTokens.default" on the chatMode field).
type scope struct {
	key string
	tag reflect.StructTag
}

// buildRegistry reads the Settings tags. A malformed tag is a programming
// error caught by this package's tests, so it panics with the field named.
func buildRegistry() *registry {
	r := &registry{
		byKey:   map[string]*entry{},
		byEnv:   map[string]*entry{},
		groups:  map[string]bool{},
		renames: map[string]string{},
	}
	r.walk(reflect.TypeFor[Settings](), "", nil, nil)
	dv := reflect.ValueOf(&r.defaults).Elem()
	for _, e := range r.entries {
		dv.FieldByIndex(e.index).Set(reflect.ValueOf(e.def))
	}
	return r
}

func (r *registry) walk(t reflect.Type, prefix string, index []int, scopes []scope) {
	for i := range t.NumField() {
		f := t.Field(i)
		name := f.Tag.Get("key")
		if name == "" || strings.Contains(name, ".") {
			panic(fmt.Sprintf("config: field %s.%s needs a key tag without dots", t.Name(), f.Name))
		}
		full := joinKey(prefix, name)
		idx := append(slices.Clone(index), i)
		if f.Type.Kind() == reflect.Struct && f.Type != durationType {
			r.groups[full] = true
			for old := range strings.SplitSeq(f.Tag.Get("renamedFrom"), "|") {
				if old != "" {
					r.renames[joinKey(prefix, old)] = full
				}
			}
			r.walk(f.Type, full, idx, append(slices.Clone(scopes), scope{key: full, tag: f.Tag}))
			continue
		}
		e, err := newEntry(full, idx, f, scopes)
		if err != nil {
			panic(fmt.Sprintf("config: field %s.%s (%s): %v", t.Name(), f.Name, full, err))
		}
		if other, dup := r.byEnv[e.env]; dup {
			panic(fmt.Sprintf("config: keys %s and %s share the variable %s", other.key, full, e.env))
		}
		e.pos = len(r.entries)
		r.entries = append(r.entries, e)
		r.byKey[full] = e
		r.byEnv[e.env] = e
	}
}

// tagOf finds a leaf's tag, letting the outermost enclosing group win: the
// group field is the more specific declaration.
func tagOf(full string, f reflect.StructField, scopes []scope, name string) (string, bool) {
	for _, s := range scopes {
		rel := strings.TrimPrefix(full, s.key+".")
		if v, ok := s.tag.Lookup(rel + "." + name); ok {
			return v, true
		}
	}
	return f.Tag.Lookup(name)
}

func newEntry(full string, idx []int, f reflect.StructField, scopes []scope) (*entry, error) {
	tag := func(name string) string { v, _ := tagOf(full, f, scopes, name); return v }
	k, err := kindFor(f.Type)
	if err != nil {
		return nil, err
	}
	e := &entry{key: full, env: envName(full), index: idx, kind: k, doc: tag("doc"), secret: tag("secret") == "true", userOnly: tag("userOnly") == "true"}
	if e.doc == "" {
		return nil, fmt.Errorf("no doc tag")
	}
	if v := tag("enum"); v != "" {
		e.enum = strings.Split(v, "|")
	}
	if e.min, e.hasMin, err = parseBound(tag("min")); err != nil {
		return nil, fmt.Errorf("min: %w", err)
	}
	if e.max, e.hasMax, err = parseBound(tag("max")); err != nil {
		return nil, fmt.Errorf("max: %w", err)
	}
	if e.checkName = tag("check"); e.checkName != "" {
		if e.check = checkNamed(e.checkName); e.check == nil {
			return nil, fmt.Errorf("unknown check %q", e.checkName)
		}
	}
	if e.def, err = defaultValue(e, tag("default")); err != nil {
		return nil, fmt.Errorf("default: %w", err)
	}
	return e, nil
}

func parseBound(s string) (float64, bool, error) {
	if s == "" {
		return 0, false, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil, err
}

// defaultValue parses a default tag the way a value in a file is parsed, and
// checks it against the key's own rules.
func defaultValue(e *entry, text string) (any, error) {
	if text == "DefaultFileRules()" {
		if _, ok := e.kind.(rulesKind); ok {
			return DefaultFileRules(), nil
		}
	}
	if text == "" {
		if _, ok := e.kind.(stringKind); !ok {
			return reflect.Zero(e.kind.goType()).Interface(), nil
		}
	}
	v, p := e.kind.fromText(e, text)
	if p == nil {
		p = e.validate(v)
	}
	if p != nil {
		return nil, fmt.Errorf("%q: %s", text, p.msg)
	}
	return v, nil
}

// envName turns a key into its variable: agent.maxIterations →
// OLLY_AGENT_MAX_ITERATIONS, baseUrl → OLLY_BASE_URL.
func envName(key string) string {
	var b strings.Builder
	b.WriteString("OLLY_")
	prev := rune(0)
	for _, c := range key {
		switch {
		case c == '.':
			b.WriteByte('_')
		case unicode.IsUpper(c) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			b.WriteByte('_')
			b.WriteRune(c)
		default:
			b.WriteRune(unicode.ToUpper(c))
		}
		prev = c
	}
	return b.String()
}

func joinKey(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// renamedKey reports the new name of a key under a renamed group
// ("askMode.model" → "chatMode.model").
func (r *registry) renamedKey(key string) (string, bool) {
	for old, cur := range r.renames {
		if key == old {
			return cur, true
		}
		if rest, ok := strings.CutPrefix(key, old+"."); ok {
			return cur + "." + rest, true
		}
	}
	return "", false
}

// renamedEnv reports the key an environment variable of a renamed group
// names (OLLY_ASK_MODE_MODEL → askMode.model, chatMode.model).
func (r *registry) renamedEnv(name string) (oldKey, newKey string, ok bool) {
	for old, cur := range r.renames {
		for _, e := range r.entries {
			if rest, found := strings.CutPrefix(e.key, cur+"."); found && envName(old+"."+rest) == name {
				return old + "." + rest, e.key, true
			}
		}
	}
	return "", "", false
}

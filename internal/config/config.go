package config

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Config is the effective settings with the source of each value. It is
// never changed after Load; WithOverrides returns a new one.
type Config struct {
	Settings

	sources        []Source // by entry position
	paths          Paths
	defaultDataDir string
	loadWarnings   []string // from the environment
	warnings       []string // from the combination of values
}

// Paths are the files and directories olly uses, with DataDir following
// storagePath.
func (c *Config) Paths() Paths { return c.paths }

// Warnings are problems that did not stop loading: unknown OLLY_* variables,
// ignored XDG variables, settings that contradict each other. The CLI prints
// them to stderr.
func (c *Config) Warnings() []string {
	return append(slices.Clone(c.loadWarnings), c.warnings...)
}

// Source says where the effective value of key came from.
func (c *Config) Source(key string) (Source, bool) {
	e := keys().byKey[key]
	if e == nil {
		return Source{}, false
	}
	return c.sources[e.pos], true
}

// Value is the effective value of key, as its Go type (string, int,
// float64, bool, time.Duration, []string, []FileRule).
func (c *Config) Value(key string) (any, bool) {
	e := keys().byKey[key]
	if e == nil {
		return nil, false
	}
	return c.value(e), true
}

func (c *Config) value(e *entry) any {
	return reflect.ValueOf(&c.Settings).Elem().FieldByIndex(e.index).Interface()
}

// Entry is one key's effective value, for listings.
type Entry struct {
	KeyInfo
	Value  any
	Source Source
	e      *entry
}

// Text is the value as `olly config set` accepts it.
func (en Entry) Text() string { return en.e.kind.text(en.Value) }

// JSON is the value for --json output: durations in milliseconds, rules as
// a list of {pattern, action}.
func (en Entry) JSON() any { return en.e.kind.jsonValue(en.Value) }

// Display is the value for a listing: secrets masked, long rule lists
// summarised.
func (en Entry) Display() string {
	if en.Secret {
		return Mask(en.Text())
	}
	if rules, ok := en.Value.([]FileRule); ok {
		return rulesSummary(rules)
	}
	return en.Text()
}

// Mask hides a secret, showing only whether it is set.
func Mask(s string) string {
	if s == "" {
		return ""
	}
	return "********"
}

// Entries lists every key in declaration order.
func (c *Config) Entries() []Entry {
	r := keys()
	out := make([]Entry, len(r.entries))
	for i, e := range r.entries {
		out[i] = Entry{KeyInfo: e.info(), Value: c.value(e), Source: c.sources[e.pos], e: e}
	}
	return out
}

// Entry returns one key's entry.
func (c *Config) Entry(key string) (Entry, bool) {
	e := keys().byKey[key]
	if e == nil {
		return Entry{}, false
	}
	return Entry{KeyInfo: e.info(), Value: c.value(e), Source: c.sources[e.pos], e: e}, true
}

// WithOverrides returns a copy with the session's overrides applied on top
// (source "session"). Values may be Go values of the key's type, what JSON
// decoding gives (float64, []any, map[string]any), or text as in an
// environment variable ("45s", "a,b"). All problems are returned together.
func (c *Config) WithOverrides(overrides map[string]any) (*Config, error) {
	r := keys()
	n := *c
	n.sources = slices.Clone(c.sources)
	n.cloneSlices(r)
	names := make([]string, 0, len(overrides))
	for k := range overrides {
		names = append(names, k)
	}
	sort.Strings(names)
	var errs []*Error
	src := Source{Kind: FromSession}
	for _, key := range names {
		e := r.byKey[key]
		if e == nil {
			errs = append(errs, r.unknownKey(src, key))
			continue
		}
		v, p := decodeGo(e, overrides[key])
		if p != nil {
			errs = append(errs, &Error{Kind: p.kind, Source: src, Key: key, Msg: p.msg})
			continue
		}
		n.set(e, v, src)
	}
	if len(errs) > 0 {
		return nil, &LoadError{Errors: errs}
	}
	n.finish()
	return &n, nil
}

// decodeGo reads a value given as Go data.
func decodeGo(e *entry, v any) (any, *problem) {
	if v == nil {
		return nil, problemf(ErrType, "no value: expected %s", e.expect())
	}
	if reflect.TypeOf(v) == e.kind.goType() {
		v = cloneValue(v)
		return v, e.validate(v)
	}
	if s, ok := v.(string); ok {
		return decodeText(e, s)
	}
	if _, ok := e.kind.(rulesKind); ok {
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Map && rv.Len() > 1 {
			return nil, problemf(ErrType, "a Go map loses the order of the rules (last match wins): give a list of {pattern, action}")
		}
	}
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return nil, problemf(ErrType, "expected %s, got %T", e.expect(), v)
	}
	return decodeNode(e, &n)
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case []string:
		return slices.Clone(x)
	case []FileRule:
		return slices.Clone(x)
	case []MCPServer:
		return cloneServers(x)
	}
	return v
}

// cloneSlices gives c its own copies of slice values, so no two Configs
// share backing arrays.
func (c *Config) cloneSlices(r *registry) {
	sv := reflect.ValueOf(&c.Settings).Elem()
	for _, e := range r.entries {
		if e.kind.goType().Kind() == reflect.Slice {
			f := sv.FieldByIndex(e.index)
			f.Set(reflect.ValueOf(cloneValue(f.Interface())))
		}
	}
}

// KeyInfo describes one key, for completion, listings and documentation.
type KeyInfo struct {
	Key     string   `json:"key"`
	Env     string   `json:"env"`
	Type    string   `json:"type"`
	Default string   `json:"default"`
	Range   string   `json:"range,omitempty"`
	Enum    []string `json:"enum,omitempty"`
	Secret  bool     `json:"secret,omitempty"`
	Doc     string   `json:"doc"`
}

// Keys describes every key, in declaration order.
func Keys() []KeyInfo {
	r := keys()
	out := make([]KeyInfo, len(r.entries))
	for i, e := range r.entries {
		out[i] = e.info()
	}
	return out
}

// Lookup describes one key.
func Lookup(key string) (KeyInfo, bool) {
	e := keys().byKey[key]
	if e == nil {
		return KeyInfo{}, false
	}
	return e.info(), true
}

// CheckKey returns nil for a known key, and otherwise an *Error saying what
// it was renamed to or which key was probably meant.
func CheckKey(key string) error {
	r := keys()
	if r.byKey[key] != nil {
		return nil
	}
	return r.unknownKey(Source{}, key)
}

func (e *entry) info() KeyInfo {
	ki := KeyInfo{Key: e.key, Env: e.env, Type: e.kind.typeName(), Default: e.kind.text(e.def),
		Enum: e.enum, Secret: e.secret, Doc: e.doc}
	if _, ok := e.kind.(rulesKind); ok {
		ki.Default = "DefaultFileRules()"
	}
	if e.checkName != "" {
		ki.Type += " (" + e.checkName + ")"
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	switch {
	case e.hasMin && e.hasMax:
		ki.Range = f(e.min) + "–" + f(e.max)
	case e.hasMin:
		ki.Range = "≥ " + f(e.min)
	case e.hasMax:
		ki.Range = "≤ " + f(e.max)
	}
	if _, ok := e.kind.(durationKind); ok && ki.Range != "" {
		ki.Range += " ms"
	}
	if _, ok := e.kind.(listKind); ok && e.hasMin {
		ki.Range = "at least " + f(e.min) + " item"
		if e.min != 1 {
			ki.Range += "s"
		}
	}
	return ki
}

// ValueHints lists the values worth completing for key: its enum values, or
// true/false.
func ValueHints(key string) []string {
	e := keys().byKey[key]
	switch {
	case e == nil:
		return nil
	case len(e.enum) > 0:
		return slices.Clone(e.enum)
	}
	if _, ok := e.kind.(boolKind); ok {
		return []string{"true", "false"}
	}
	return nil
}

// String lists the effective settings, one "key = value (source)" per line,
// secrets masked: for logs and debugging.
func (c *Config) String() string {
	var b strings.Builder
	for _, en := range c.Entries() {
		fmt.Fprintf(&b, "%s = %s (%s)\n", en.Key, en.Display(), en.Source)
	}
	return b.String()
}

// DefaultStrings returns the default of a string-list key (sandbox.writable's
// build caches), or nil for an unknown key or one of another type.
func DefaultStrings(key string) []string {
	e := keys().byKey[key]
	if e == nil {
		return nil
	}
	v, _ := e.def.([]string)
	return slices.Clone(v)
}

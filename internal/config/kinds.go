package config

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// problem is what is wrong with one value, before it is placed in a file,
// variable or flag. line, when set, is a more precise line than the key's
// (an item inside a rule list).
type problem struct {
	kind ErrorKind
	msg  string
	line int
}

func problemf(k ErrorKind, format string, args ...any) *problem {
	return &problem{kind: k, msg: fmt.Sprintf(format, args...)}
}

// kind reads and writes the values of one Go type. Values are held as the
// field's Go type (string, int, float64, bool, time.Duration, []string,
// []FileRule).
type kind interface {
	goType() reflect.Type
	typeName() string
	// fromNode reads a YAML value that is neither null nor an alias.
	fromNode(e *entry, n *yaml.Node) (any, *problem)
	// fromText reads the text of an environment variable or a flag.
	fromText(e *entry, s string) (any, *problem)
	// toNode is how `olly config set` writes a value into a file.
	toNode(v any) *yaml.Node
	// text shows a value; fromText reads it back.
	text(v any) string
	// jsonValue is the value in `--json` output.
	jsonValue(v any) any
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	rulesType    = reflect.TypeFor[[]FileRule]()
	listType     = reflect.TypeFor[[]string]()
)

func kindFor(t reflect.Type) (kind, error) {
	switch {
	case t == durationType:
		return durationKind{}, nil
	case t == rulesType:
		return rulesKind{}, nil
	case t == listType:
		return listKind{}, nil
	case t == mcpServersType:
		return serversKind{}, nil
	case t.Kind() == reflect.String:
		return stringKind{}, nil
	case t.Kind() == reflect.Int:
		return intKind{}, nil
	case t.Kind() == reflect.Float64:
		return floatKind{}, nil
	case t.Kind() == reflect.Bool:
		return boolKind{}, nil
	}
	return nil, fmt.Errorf("unsupported type %s", t)
}

// describe names a YAML value for "got …" in messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str":
			return "the string " + strconv.Quote(n.Value)
		case "!!null":
			return "nothing (null)"
		}
		return n.Value
	}
	return "an unsupported YAML value"
}

func typeProblem(e *entry, got string) *problem {
	return problemf(ErrType, "expected %s, got %s", e.expect(), got)
}

func scalar(tag, value string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value}
}

// stringKind: any scalar is taken as its text, so `keepAlive: -1` and
// `model: 7` read as written.
type stringKind struct{}

func (stringKind) goType() reflect.Type { return reflect.TypeFor[string]() }
func (stringKind) typeName() string     { return "string" }
func (stringKind) fromNode(e *entry, n *yaml.Node) (any, *problem) {
	if n.Kind != yaml.ScalarNode {
		return nil, typeProblem(e, describe(n))
	}
	return n.Value, nil
}
func (stringKind) fromText(_ *entry, s string) (any, *problem) {
	if !utf8.ValidString(s) {
		return nil, problemf(ErrInvalid, "%q is not valid UTF-8 text", s)
	}
	return s, nil
}
func (stringKind) toNode(v any) *yaml.Node { return scalar("!!str", v.(string)) }
func (stringKind) text(v any) string       { return v.(string) }
func (stringKind) jsonValue(v any) any     { return v }

type intKind struct{}

func (intKind) goType() reflect.Type { return reflect.TypeFor[int]() }
func (intKind) typeName() string     { return "integer" }
func (intKind) fromNode(e *entry, n *yaml.Node) (any, *problem) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		return nil, typeProblem(e, describe(n))
	}
	var v int
	if err := n.Decode(&v); err != nil {
		return nil, problemf(ErrRange, "%s is out of range: expected %s", n.Value, e.expect())
	}
	return v, nil
}
func (intKind) fromText(e *entry, s string) (any, *problem) {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		if isRangeErr(err) {
			return nil, problemf(ErrRange, "%s is out of range: expected %s", s, e.expect())
		}
		return nil, typeProblem(e, strconv.Quote(s))
	}
	return v, nil
}
func (intKind) toNode(v any) *yaml.Node { return scalar("", strconv.Itoa(v.(int))) }
func (intKind) text(v any) string       { return strconv.Itoa(v.(int)) }
func (intKind) jsonValue(v any) any     { return v }

type floatKind struct{}

func (floatKind) goType() reflect.Type { return reflect.TypeFor[float64]() }
func (floatKind) typeName() string     { return "number" }
func (floatKind) fromNode(e *entry, n *yaml.Node) (any, *problem) {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
		return nil, typeProblem(e, describe(n))
	}
	var v float64
	if err := n.Decode(&v); err != nil {
		return nil, typeProblem(e, describe(n))
	}
	return v, nil
}
func (floatKind) fromText(e *entry, s string) (any, *problem) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return nil, typeProblem(e, strconv.Quote(s))
	}
	return v, nil
}
func (floatKind) toNode(v any) *yaml.Node { return scalar("", floatText(v.(float64))) }
func (floatKind) text(v any) string       { return floatText(v.(float64)) }
func (floatKind) jsonValue(v any) any     { return v }

func floatText(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

type boolKind struct{}

func (boolKind) goType() reflect.Type { return reflect.TypeFor[bool]() }
func (boolKind) typeName() string     { return "boolean" }
func (boolKind) fromNode(e *entry, n *yaml.Node) (any, *problem) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		return nil, typeProblem(e, describe(n))
	}
	return strings.EqualFold(n.Value, "true"), nil
}

// fromText also takes yes/no and on/off, which people write in shells.
func (boolKind) fromText(e *entry, s string) (any, *problem) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1", "yes", "on", "t":
		return true, nil
	case "false", "0", "no", "off", "f":
		return false, nil
	}
	return nil, typeProblem(e, strconv.Quote(s))
}
func (boolKind) toNode(v any) *yaml.Node { return scalar("", strconv.FormatBool(v.(bool))) }
func (boolKind) text(v any) string       { return strconv.FormatBool(v.(bool)) }
func (boolKind) jsonValue(v any) any     { return v }

// durationKind reads a bare number as milliseconds (the seed's unit, so its
// settings carry over) and anything else as a Go duration ("45s", "2m").
type durationKind struct{}

func (durationKind) goType() reflect.Type { return durationType }
func (durationKind) typeName() string     { return "duration" }
func (k durationKind) fromNode(e *entry, n *yaml.Node) (any, *problem) {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!str") {
		return nil, typeProblem(e, describe(n))
	}
	return k.fromText(e, n.Value)
}
func (durationKind) fromText(e *entry, s string) (any, *problem) {
	t := strings.TrimSpace(s)
	if ms, err := strconv.ParseInt(t, 10, 64); err == nil || isRangeErr(err) {
		if err != nil || ms > math.MaxInt64/int64(time.Millisecond) || ms < math.MinInt64/int64(time.Millisecond) {
			return nil, problemf(ErrRange, "%s is out of range: expected %s", t, e.expect())
		}
		return time.Duration(ms) * time.Millisecond, nil
	}
	d, err := time.ParseDuration(t)
	if err != nil {
		return nil, typeProblem(e, strconv.Quote(s))
	}
	return d, nil
}
func (durationKind) toNode(v any) *yaml.Node {
	return scalar("!!str", formatDuration(v.(time.Duration)))
}
func (durationKind) text(v any) string   { return formatDuration(v.(time.Duration)) }
func (durationKind) jsonValue(v any) any { return v.(time.Duration).Milliseconds() }

// formatDuration writes the shortest exact form: 2m, 45s, 1500ms.
func formatDuration(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	case d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	case d%time.Millisecond == 0:
		return strconv.FormatInt(int64(d/time.Millisecond), 10) + "ms"
	}
	return d.String()
}

// listKind is a list of names: a YAML sequence in files; in variables and
// flags either "a,b,c" or a YAML flow list "[a, b]".
type listKind struct{}

func (listKind) goType() reflect.Type { return listType }
func (listKind) typeName() string     { return "list of strings" }
func (listKind) fromNode(e *entry, n *yaml.Node) (any, *problem) {
	if n.Kind != yaml.SequenceNode {
		return nil, typeProblem(e, describe(n))
	}
	out := make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		item = resolveAlias(item)
		if item.Kind != yaml.ScalarNode || item.ShortTag() == "!!null" || item.Value == "" {
			return nil, &problem{kind: ErrType, line: item.Line,
				msg: fmt.Sprintf("item %d: expected a non-empty name, got %s", i+1, describe(item))}
		}
		out = append(out, item.Value)
	}
	return out, nil
}
func (k listKind) fromText(e *entry, s string) (any, *problem) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "[") {
		n, err := parseValueText(t)
		if err != nil {
			return nil, problemf(ErrType, "expected %s: %v", e.expect(), err)
		}
		return k.fromNode(e, n)
	}
	out := []string{}
	if t == "" {
		return out, nil
	}
	if !utf8.ValidString(t) {
		return nil, problemf(ErrInvalid, "%q is not valid UTF-8 text", s)
	}
	for i, part := range strings.Split(t, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, problemf(ErrType, "item %d is empty: expected %s", i+1, e.expect())
		}
		out = append(out, part)
	}
	return out, nil
}
func (listKind) toNode(v any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, s := range v.([]string) {
		n.Content = append(n.Content, scalar("!!str", s))
	}
	return n
}
func (k listKind) text(v any) string { return nodeText(k.toNode(v)) }
func (listKind) jsonValue(v any) any { return v }

// nodeText encodes one value on one line, as a flow value.
func nodeText(n *yaml.Node) string {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	if err := enc.Encode(n); err != nil {
		return fmt.Sprintf("<unencodable: %v>", err)
	}
	_ = enc.Close()
	return strings.TrimSuffix(b.String(), "\n")
}

// parseValueText parses the YAML text of one value (a flow list or mapping
// given in a variable or flag).
func parseValueText(s string) (*yaml.Node, error) {
	var doc yaml.Node
	if err := safeUnmarshal([]byte(s), &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return scalar("!!null", ""), nil
	}
	return resolveAlias(doc.Content[0]), nil
}

// resolveAlias follows an alias to its anchored value.
func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func isRangeErr(err error) bool {
	var ne *strconv.NumError
	return errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange)
}

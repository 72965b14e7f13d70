package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Args are a call's arguments: a JSON object whose fields tools read by
// name, accepting the aliases models use (path, file, filePath).
type Args struct {
	fields map[string]json.RawMessage
}

// ParseArgs decodes raw, which must be a JSON object (or empty).
func ParseArgs(raw json.RawMessage) (Args, error) {
	a := Args{fields: map[string]json.RawMessage{}}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return a, nil
	}
	if err := json.Unmarshal(trimmed, &a.fields); err != nil {
		return a, fmt.Errorf("arguments must be a JSON object: %v", err)
	}
	return a, nil
}

// ArgsOf builds Args from a map, for tests and internal callers.
func ArgsOf(m map[string]any) Args {
	a := Args{fields: map[string]json.RawMessage{}}
	for k, v := range m {
		b, _ := json.Marshal(v)
		a.fields[k] = b
	}
	return a
}

// Has reports whether any of the keys is present.
func (a Args) Has(keys ...string) bool {
	for _, k := range keys {
		if _, ok := a.fields[k]; ok {
			return true
		}
	}
	return false
}

// String returns the first of keys that is present and not null, as a
// string. Numbers and booleans are converted (models quote inconsistently);
// objects and arrays are returned as their JSON text.
func (a Args) String(keys ...string) (string, bool) {
	for _, k := range keys {
		raw, ok := a.fields[k]
		if !ok {
			continue
		}
		t := strings.TrimSpace(string(raw))
		if t == "null" {
			continue // models send null for "not given"
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s, true
		}
		return t, true
	}
	return "", false
}

// Int returns the first of keys that is present as an integer, accepting
// numbers and numeric strings. ok is false when absent; err when present
// but not an integer.
func (a Args) Int(keys ...string) (n int, ok bool, err error) {
	s, ok := a.String(keys...)
	if !ok || s == "" {
		return 0, false, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.Abs(f) > 1e15 || f != math.Trunc(f) {
		return 0, true, fmt.Errorf("%s must be a whole number, got %s", keys[0], s)
	}
	return int(f), true, nil
}

// Bool returns the first of keys that is present as a boolean, accepting
// true/false and their string forms.
func (a Args) Bool(keys ...string) (v bool, ok bool, err error) {
	s, ok := a.String(keys...)
	if !ok || s == "" {
		return false, false, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, true, fmt.Errorf("%s must be true or false, got %s", keys[0], s)
	}
	return b, true, nil
}

// Path returns the path argument under any of its accepted names (seed
// 000: path, file or filePath).
func (a Args) Path() (string, bool) {
	return a.String("path", "file", "filePath", "file_path")
}

// Decode unmarshals all the arguments into v.
func (a Args) Decode(v any) error {
	b, err := json.Marshal(a.fields)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

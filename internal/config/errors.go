package config

import (
	"fmt"
	"strconv"
	"strings"
)

// SourceKind says which layer a value came from.
type SourceKind string

// The layers, lowest first.
const (
	FromDefault SourceKind = "default"
	FromFile    SourceKind = "file"
	FromEnv     SourceKind = "env"
	FromFlag    SourceKind = "flag"
	FromSession SourceKind = "session"
)

// Source is where a value came from: the default, a file and line, an
// environment variable, a flag, or the session.
type Source struct {
	Kind SourceKind `json:"kind"`
	// Name is the file path, the variable name or the flag ("--base-url").
	Name string `json:"name,omitempty"`
	// Line is the line in the file, when known.
	Line int `json:"line,omitempty"`
}

// String is the short form shown by `olly config list`:
// "default", "/home/me/.config/olly/config.yaml:4", "env OLLY_BASE_URL",
// "flag --model", "session".
func (s Source) String() string {
	switch s.Kind {
	case FromFile:
		if s.Line > 0 {
			return s.Name + ":" + strconv.Itoa(s.Line)
		}
		return s.Name
	case FromEnv:
		return "env " + s.Name
	case FromFlag:
		return "flag " + s.Name
	}
	return string(s.Kind)
}

// ErrorKind classifies a settings error.
type ErrorKind int

// The kinds of settings error.
const (
	ErrSyntax     ErrorKind = iota + 1 // the file is not valid YAML
	ErrIO                              // the file cannot be read or written
	ErrUnknownKey                      // no such key
	ErrRenamedKey                      // a key olly renamed (askMode.* → chatMode.*)
	ErrDuplicate                       // the same key twice in one file
	ErrType                            // the wrong type of value
	ErrRange                           // a number outside its range
	ErrEnum                            // a value not among the allowed ones
	ErrInvalid                         // a value of the wrong form (URL, path, glob, keepAlive)
	ErrUserOnly                        // a key a project file may not set
)

// Error is one problem with one setting in one place.
type Error struct {
	Kind   ErrorKind
	Source Source
	// Key is the setting's key as written, when the problem has one.
	Key string
	// Msg says what is wrong and, where it can, what to do.
	Msg string
	// Suggestion is the nearest known key for an unknown one, or the new
	// name of a renamed one.
	Suggestion string
}

// Error is "<where>: <key>: <what is wrong>", where is the file and line,
// "env NAME" or "flag --name".
func (e *Error) Error() string {
	var b strings.Builder
	if loc := e.Source.String(); e.Source.Kind != "" && e.Source.Kind != FromDefault {
		b.WriteString(loc)
		b.WriteString(": ")
	}
	if e.Key != "" && e.Kind != ErrUnknownKey && e.Kind != ErrRenamedKey {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// maxReported bounds how many problems one error lists, so a wrong file
// (say, a different program's YAML) gives a readable message.
const maxReported = 20

// LoadError is every problem found while loading settings. Loading reports
// all of them at once so a person can fix a file in one go.
type LoadError struct {
	Errors []*Error
	// Warnings were found too (unknown OLLY_* variables); they are returned
	// here because a failed load returns no Config to carry them.
	Warnings []string
}

// Error lists every problem, one per line after a count, then says what to
// do.
func (e *LoadError) Error() string {
	if len(e.Errors) == 1 {
		return e.Errors[0].Error() + hint(e.Errors)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d problems in olly's settings:", len(e.Errors))
	for i, err := range e.Errors {
		if i == maxReported {
			fmt.Fprintf(&b, "\n  … and %d more", len(e.Errors)-maxReported)
			break
		}
		b.WriteString("\n  ")
		b.WriteString(err.Error())
	}
	b.WriteString(hint(e.Errors))
	return b.String()
}

// Unwrap gives errors.As access to each *Error.
func (e *LoadError) Unwrap() []error {
	out := make([]error, len(e.Errors))
	for i, err := range e.Errors {
		out[i] = err
	}
	return out
}

// hint says what to do next, once, after the list.
func hint(errs []*Error) string {
	for _, e := range errs {
		if e.Source.Kind == FromFile {
			return "\n(edit the file, or run `olly config set`/`olly config unset KEY --global|--project`; `olly config path` shows where the files are)"
		}
	}
	return ""
}

// unknownKey builds the error for a key no field declares, naming the
// nearest key when one is close enough to be what was meant.
func (r *registry) unknownKey(src Source, key string) *Error {
	if newKey, ok := r.renamedKey(key); ok {
		old := key[:strings.IndexByte(key+".", '.')]
		cur := newKey[:strings.IndexByte(newKey+".", '.')]
		return &Error{Kind: ErrRenamedKey, Source: src, Key: key, Suggestion: newKey,
			Msg: fmt.Sprintf("%s: the %s.* settings were renamed to %s.* — write %s instead", key, old, cur, newKey)}
	}
	e := &Error{Kind: ErrUnknownKey, Source: src, Key: key, Suggestion: r.suggest(key)}
	if e.Suggestion != "" {
		e.Msg = fmt.Sprintf("unknown key %q (did you mean %s?)", key, e.Suggestion)
	} else {
		e.Msg = fmt.Sprintf("unknown key %q (`olly config list` shows every key)", key)
	}
	return e
}

package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"slices"

	"go.yaml.in/yaml/v3"
)

// LoadOptions are everything loading reads besides the two files, so tests
// (and callers) never touch the real home directory or environment.
type LoadOptions struct {
	// Workspace is the project directory; its .olly/config.yaml is the
	// project layer. Empty: no project layer.
	Workspace string
	// Home is the home directory, for the XDG fallbacks (~/.config, …).
	Home string
	// Environ is the environment as os.Environ returns it ("NAME=value").
	// XDG_* variables place the files; OLLY_* variables are a layer.
	Environ []string
	// Flags are the command-line layer, applied in order.
	Flags []FlagValue
	// OtherEnv names OLLY_* variables that other parts of olly read and
	// that are not settings (OLLY_DB, …): they are not warned about.
	OtherEnv []string
}

// FlagValue is one setting given on the command line.
type FlagValue struct {
	// Flag names the flag for messages and sources: "--base-url", "--set".
	Flag  string
	Key   string
	Value string
}

// Load builds the effective settings: defaults < global file < project file
// < OLLY_* environment < flags. Every problem in every layer is reported in
// one *LoadError; unknown OLLY_* variables are only warnings (other tools
// may use the prefix), returned by Config.Warnings.
func Load(opts LoadOptions) (*Config, error) {
	r := keys()
	env := parseEnviron(opts.Environ)
	paths, warnings, err := resolvePaths(env, opts.Home, opts.Workspace)
	if err != nil {
		return nil, err
	}
	c := newConfig(r, paths)
	var errs []*Error
	if paths.GlobalFile != "" {
		fileErrs, _ := c.applyFile(r, paths.GlobalFile, false)
		errs = append(errs, fileErrs...)
	}
	if paths.ProjectFile != "" {
		fileErrs, ignored := c.applyFile(r, paths.ProjectFile, true)
		errs = append(errs, fileErrs...)
		warnings = append(warnings, ignored...)
	}
	envErrs, envWarnings := c.applyEnv(r, env, opts.OtherEnv)
	errs = append(errs, envErrs...)
	warnings = append(warnings, envWarnings...)
	errs = append(errs, c.applyFlags(r, opts.Flags)...)
	if len(errs) > 0 {
		return nil, &LoadError{Errors: errs, Warnings: warnings}
	}
	c.loadWarnings = warnings
	c.finish()
	return c, nil
}

func newConfig(r *registry, paths Paths) *Config {
	c := &Config{Settings: r.defaults, sources: make([]Source, len(r.entries)), paths: paths, defaultDataDir: paths.DataDir}
	c.cloneSlices(r)
	for i := range c.sources {
		c.sources[i] = Source{Kind: FromDefault}
	}
	return c
}

// set stores a checked value and where it came from.
func (c *Config) set(e *entry, v any, src Source) {
	reflect.ValueOf(&c.Settings).Elem().FieldByIndex(e.index).Set(reflect.ValueOf(v))
	c.sources[e.pos] = src
}

func (c *Config) applyFile(r *registry, path string, project bool) ([]*Error, []string) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return []*Error{{Kind: ErrIO, Source: Source{Kind: FromFile, Name: path},
			Msg: fmt.Sprintf("cannot read the settings file: %v (check that it is a readable file)", err)}}, nil
	}
	return c.applyFileData(r, data, path, project)
}

// applyFileData applies one file's settings. A key set twice in one file is
// an error rather than last-wins: one of the two lines is a mistake. A
// project file may not set user-only keys: such a line is ignored, with a
// warning, and the rest of the file applies — a repository someone clones
// must not be able to lock them out of olly with one line.
func (c *Config) applyFileData(r *registry, data []byte, path string, project bool) ([]*Error, []string) {
	var ignored []string
	assigned, errs := r.parseFile(data, path)
	seen := make(map[string]int, len(assigned))
	for _, a := range assigned {
		src := Source{Kind: FromFile, Name: path, Line: a.line}
		if first, dup := seen[a.key]; dup {
			errs = append(errs, &Error{Kind: ErrDuplicate, Source: src, Key: a.key,
				Msg: fmt.Sprintf("set twice in this file (first at line %d); keep one", first)})
			continue
		}
		seen[a.key] = a.line
		e := r.byKey[a.key]
		if project && e.userOnly {
			ignored = append(ignored, fmt.Sprintf("%s: %s %s; this line is ignored", src, e.key, userOnlyError(e, src).Msg))
			continue
		}
		v, p := decodeNode(e, a.node)
		if p != nil {
			if p.line > 0 {
				src.Line = p.line
			}
			errs = append(errs, &Error{Kind: p.kind, Source: src, Key: e.key, Msg: p.msg})
			continue
		}
		c.set(e, v, src)
	}
	// Shape problems are found before value problems; a person reads a
	// file top to bottom.
	slices.SortStableFunc(errs, func(a, b *Error) int { return a.Source.Line - b.Source.Line })
	return errs, ignored
}

// decodeNode reads and checks a value from a file.
func decodeNode(e *entry, n *yaml.Node) (any, *problem) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil, problemf(ErrType, "no value: write one (\"\" for an empty string), or delete the line to use the default")
	}
	v, p := e.kind.fromNode(e, n)
	if p == nil {
		p = e.validate(v)
	}
	return v, p
}

// decodeText reads and checks a value from a variable, a flag or `olly
// config set`.
func decodeText(e *entry, s string) (any, *problem) {
	v, p := e.kind.fromText(e, s)
	if p == nil {
		p = e.validate(v)
	}
	return v, p
}

// applyEnv applies OLLY_* variables. A variable that names a renamed key is
// an error, as in a file; one that names nothing is a warning.
func (c *Config) applyEnv(r *registry, env environ, other []string) ([]*Error, []string) {
	var errs []*Error
	var warnings []string
	for _, kv := range env.olly {
		name, value := kv[0], kv[1]
		src := Source{Kind: FromEnv, Name: name}
		e := r.byEnv[name]
		if e == nil && slices.Contains(other, name) {
			continue
		}
		if e == nil {
			if oldKey, newKey, ok := r.renamedEnv(name); ok {
				errs = append(errs, &Error{Kind: ErrRenamedKey, Source: src, Key: oldKey, Suggestion: newKey,
					Msg: fmt.Sprintf("%s is renamed to %s (the askMode.*/editMode.* settings were renamed to chatMode.*): set %s instead",
						oldKey, newKey, envName(newKey))})
				continue
			}
			w := fmt.Sprintf("%s is set but is not an olly setting; ignored", name)
			if s := r.suggestEnv(name); s != "" {
				w += fmt.Sprintf(" (did you mean %s?)", s)
			}
			warnings = append(warnings, w)
			continue
		}
		v, p := decodeText(e, value)
		if p != nil {
			errs = append(errs, &Error{Kind: p.kind, Source: src, Key: e.key, Msg: p.msg})
			continue
		}
		c.set(e, v, src)
	}
	return errs, warnings
}

func (c *Config) applyFlags(r *registry, flags []FlagValue) []*Error {
	var errs []*Error
	for _, f := range flags {
		src := Source{Kind: FromFlag, Name: f.Flag}
		e := r.byKey[f.Key]
		if e == nil {
			errs = append(errs, r.unknownKey(src, f.Key))
			continue
		}
		v, p := decodeText(e, f.Value)
		if p != nil {
			errs = append(errs, &Error{Kind: p.kind, Source: src, Key: e.key, Msg: p.msg})
			continue
		}
		c.set(e, v, src)
	}
	return errs
}

// finish derives what depends on the effective values.
func (c *Config) finish() {
	c.warnings = nil
	c.paths.DataDir = c.defaultDataDir
	if c.StoragePath != "" {
		c.paths.DataDir = c.StoragePath
	}
	if c.Agent.SessionTitleGeneration == "selectModel" && c.Agent.SessionTitleModel == "" {
		c.warnings = append(c.warnings,
			"agent.sessionTitleGeneration is selectModel but agent.sessionTitleModel is empty: set a title model, or titles cannot be generated")
	}
}

// userOnlyError refuses a key in a project file. A repository someone clones
// must not be able to send their code to another server, read their token,
// move their data or loosen their approval rules.
func userOnlyError(e *entry, src Source) *Error {
	return &Error{Kind: ErrUserOnly, Source: src, Key: e.key,
		Msg: fmt.Sprintf("may not be set in a project file: a repository could use it to redirect your code or loosen approvals; set it in your global config (olly config set %s …), %s, or a flag", e.key, e.env)}
}

// CheckProjectKey returns an error if key may not be written to a project
// file (for olly config set --project).
func CheckProjectKey(key string) error {
	e, ok := keys().byKey[key]
	if !ok || !e.userOnly {
		return nil
	}
	return userOnlyError(e, Source{Kind: FromFile, Name: ".olly/config.yaml"})
}

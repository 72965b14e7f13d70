package hooks

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/olly-agent/olly/internal/trust"
)

// maxHashedFiles: at most this many project files per hook file are
// hashed; maxNamedPaths bounds the other words recorded (a path with no
// file at it yet, a directory), which cost a stat and must not use up the
// files' budget: a hook file full of plain words (jq, echo, 2) would
// otherwise leave a later hook's script out of the fingerprint.
const (
	maxHashedFiles = 64
	maxNamedPaths  = 1024
)

// Fingerprint binds the file's hooks as they would run: a changed event,
// command, matcher or timeout needs trust again. A hook often runs a
// script of the project (`./.olly/hooks/check.sh`,
// `"$CLAUDE_PROJECT_DIR"/.claude/hooks/lint.py`), which the model can
// rewrite like any workspace file: what is at every project path a hook's
// command names is part of the fingerprint too (trust.HashProjectFile: the
// content's hash, however large the file, or that nothing is there yet, so
// writing a script that was missing when trusted changes it as well).
func (f File) Fingerprint() string {
	fp, _ := f.Fingerprinted()
	return fp
}

// ProjectFiles are the existing project files the hooks' commands name,
// relative to the workspace, sorted: their content is part of the
// fingerprint.
func (f File) ProjectFiles() []string {
	_, files := f.Fingerprinted()
	return files
}

// Fingerprinted is Fingerprint and ProjectFiles from one reading of the
// project files.
func (f File) Fingerprinted() (fingerprint string, files []string) {
	hashes := f.fileHashes()
	if len(hashes) == 0 {
		// A file whose commands name no project path: the hooks alone.
		return trust.Fingerprint(f.Hooks), nil
	}
	return trust.Fingerprint(struct {
		Hooks []Hook
		Files map[string]string
	}{f.Hooks, hashes}), existing(hashes)
}

// existing are the paths of hashes that hold a file's content, sorted.
func existing(hashes map[string]string) []string {
	var out []string
	for p, sum := range hashes {
		if trust.IsContentHash(sum) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// fileHashes maps each path inside the workspace that a hook's command
// names (a word of the command, resolved against the workspace root where
// hooks run) to trust.HashProjectFile's record of it. Only project paths
// count: the model cannot write elsewhere.
func (f File) fileHashes() map[string]string {
	if !f.Project || f.Workspace == "" {
		return nil
	}
	var out map[string]string
	var files, named int
	for _, h := range f.Hooks {
		for _, w := range commandWords(h.Command, f.Workspace) {
			rel, sum, ok := trust.HashProjectFile(f.Workspace, w)
			if !ok || out[rel] != "" {
				continue
			}
			if trust.IsContentHash(sum) {
				if files == maxHashedFiles {
					return out
				}
				files++
			} else if named == maxNamedPaths {
				continue
			} else {
				named++
			}
			if out == nil {
				out = map[string]string{}
			}
			out[rel] = sum
		}
	}
	return out
}

// commandWords are the words of a hook's shell command whose value is
// known without running it: literals, quoted text, and the workspace
// variables hooks get ($CLAUDE_PROJECT_DIR, $OLLY_PROJECT_DIR). A word
// with any other expansion is left out; a command that does not parse
// falls back to its blank-separated fields.
func commandWords(command, root string) []string {
	file, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil {
		return strings.Fields(command)
	}
	var out []string
	syntax.Walk(file, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			if s, ok := wordValue(w.Parts, root); ok {
				out = append(out, s)
			}
		}
		return true
	})
	return out
}

func wordValue(parts []syntax.WordPart, root string) (string, bool) {
	var b strings.Builder
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			s, ok := wordValue(p.Parts, root)
			if !ok {
				return "", false
			}
			b.WriteString(s)
		case *syntax.ParamExp:
			if p.Param == nil || (p.Param.Value != "CLAUDE_PROJECT_DIR" && p.Param.Value != "OLLY_PROJECT_DIR") ||
				p.Exp != nil || p.Repl != nil || p.Slice != nil || p.Index != nil || p.Excl || p.Length || p.Width {
				return "", false
			}
			b.WriteString(root)
		default:
			return "", false
		}
	}
	return b.String(), true
}

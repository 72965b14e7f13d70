package sandbox

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/olly-agent/olly/internal/workspace"
)

// Bounds on the walk through a git folder's submodules: the folder is
// protected, but it may have been planted before olly protected it.
const (
	maxSubmoduleDepth = 8   // submodules of submodules of …
	maxSubmodules     = 256 // submodule work trees in all, per writable place
	maxModuleDirs     = 1024
	maxGitConfig      = 64 << 10
)

// submoduleTrees returns the work trees of the submodules whose git
// folders live in gitDir's modules folder, at every depth, as the
// protected git folder records them (not .gitmodules, which commands can
// change): each module's core.worktree, relative to its git folder, or,
// without one, its name below the work tree that holds it (parent). Only
// work trees inside root are kept.
func submoduleTrees(root, gitDir string) []string {
	w := moduleWalk{root: root}
	w.walk(gitDir, root, 0)
	return w.out
}

type moduleWalk struct {
	root string
	out  []string
	dirs int // module folders visited
}

// walk finds the modules of gitDir, whose work tree is parent.
func (w *moduleWalk) walk(gitDir, parent string, depth int) {
	if depth >= maxSubmoduleDepth {
		return
	}
	for _, name := range w.moduleNames(filepath.Join(gitDir, "modules"), "", 0) {
		if len(w.out) >= maxSubmodules {
			return
		}
		dir := filepath.Join(gitDir, "modules", name)
		tree := filepath.Join(parent, name)
		if wt, ok := gitConfigWorktree(filepath.Join(dir, "config")); ok {
			if filepath.IsAbs(wt) {
				tree = filepath.Clean(wt)
			} else {
				tree = filepath.Join(dir, wt)
			}
		}
		if !under(tree, w.root) || tree == w.root {
			continue
		}
		w.out = append(w.out, tree)
		w.walk(dir, tree, depth+1)
	}
}

// moduleNames lists the git folders below modules (a submodule's name
// may hold slashes: modules/lib/a), by relative name: a folder holding a
// HEAD or config file is one; others are looked into. Links are not
// followed.
func (w *moduleWalk) moduleNames(modules, prefix string, depth int) []string {
	if depth >= maxSubmoduleDepth || w.dirs >= maxModuleDirs {
		return nil
	}
	entries, err := readDir(filepath.Join(modules, prefix))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || w.dirs >= maxModuleDirs {
			continue
		}
		w.dirs++
		name := filepath.Join(prefix, e.Name())
		if isGitFolder(filepath.Join(modules, name)) {
			out = append(out, name)
			continue
		}
		out = append(out, w.moduleNames(modules, name, depth+1)...)
	}
	return out
}

func isGitFolder(dir string) bool {
	for _, f := range []string{"HEAD", "config"} {
		if fi, err := os.Lstat(filepath.Join(dir, f)); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// gitConfigWorktree returns core.worktree from a git config file (the
// last one wins, as in git), reading at most maxGitConfig bytes.
func gitConfigWorktree(file string) (string, bool) {
	f, _, err := workspace.OpenRegular(file)
	if err != nil {
		return "", false
	}
	defer f.Close()
	return parseWorktree(io.LimitReader(f, maxGitConfig))
}

// parseWorktree reads git config text for core.worktree: sections
// "[core]" (any case), keys "worktree" (any case), values with quotes,
// escapes and comments as git writes them. Includes are not followed.
func parseWorktree(r io.Reader) (string, bool) { return parseConfigKey(r, "core", "worktree") }

// parseConfigKey reads git config text for section.key (both any case; a
// section without a subsection), as parseWorktree describes.
func parseConfigKey(r io.Reader, section, key string) (string, bool) {
	var value string
	found, inCore := false, false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxGitConfig)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				inCore = false
				continue
			}
			inCore = strings.EqualFold(strings.TrimSpace(line[1:end]), section)
			line = strings.TrimSpace(line[end+1:]) // "[core] worktree = x" is valid
		}
		if !inCore {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), key) {
			continue
		}
		if v, ok = configValue(v); ok && v != "" {
			value, found = v, true
		}
	}
	return value, found
}

// configValue decodes a git config value: quotes, \\ \" \n \t escapes,
// and a comment (# or ;) outside quotes ends it. A value ending in an
// escaped newline (continued on the next line) is refused.
func configValue(v string) (string, bool) {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\\':
			if i++; i >= len(v) {
				return "", false
			}
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case '\\', '"':
				b.WriteByte(v[i])
			default:
				return "", false
			}
		case !quoted && (c == '#' || c == ';'):
			return strings.TrimSpace(b.String()), !quoted
		default:
			b.WriteByte(c)
		}
	}
	if quoted {
		return "", false
	}
	return strings.TrimSpace(b.String()), true
}

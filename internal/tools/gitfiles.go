package tools

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/olly-agent/olly/internal/workspace"
)

// gitSensitive says why writing p could make git run a program, or ""
// when it cannot; rule names the reason for the approval card.
//
// git runs programs named in its configuration (core.fsmonitor,
// core.hooksPath, filters, aliases, hooks) whenever it opens a repository,
// and opening one is what read-only commands such as git status do. A
// model steered by hostile repository content could write such a
// repository and then have it opened: so writes under any .git folder, to
// .gitmodules and .gitattributes (which point git at submodules and at
// filter and diff drivers), and to the files of a bare git directory (a
// folder holding HEAD with config, objects or refs, which git opens with
// --git-dir or from inside it) always ask a person.
func gitSensitive(p workspace.Path) (why, rule string) {
	parts := strings.Split(p.InRoot, "/")
	for _, part := range parts[:len(parts)-1] {
		if strings.EqualFold(part, ".git") {
			return fmt.Sprintf("%s is inside a .git folder: git runs the hooks and configured programs found there", p.Rel), "git-dir"
		}
	}
	base := path.Base(p.InRoot)
	switch strings.ToLower(base) {
	case ".git":
		// A .git file redirects git to another git directory (gitdir: …).
		return fmt.Sprintf("%s tells git where the repository is (gitdir: …), so it decides which configuration git obeys", p.Rel), "git-dir"
	case ".gitmodules":
		return fmt.Sprintf("%s configures submodules, which git clones and runs commands for", p.Rel), "git-config-file"
	case ".gitattributes":
		return fmt.Sprintf("%s assigns filter, diff and merge drivers, which git runs as programs", p.Rel), "git-config-file"
	}
	if base == "HEAD" || p.CaseInsensitive && strings.EqualFold(base, "HEAD") {
		return fmt.Sprintf("%s is the HEAD file that makes its folder a git directory, whose config git obeys", p.Rel), "git-dir"
	}
	// Inside a folder that already is a git directory (a bare or planted
	// repository): its config, objects, refs and hooks.
	area := strings.TrimSuffix(filepath.ToSlash(p.Abs), "/"+p.InRoot)
	if area == filepath.ToSlash(p.Abs) {
		return "", ""
	}
	dir := filepath.Dir(p.Abs)
	for {
		if gitDirLike(dir) {
			return fmt.Sprintf("%s is inside %s, which holds a HEAD file and so is a git directory whose config and hooks git obeys", p.Rel, dir), "git-dir"
		}
		if filepath.ToSlash(dir) == area || len(dir) <= len(area) {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", ""
}

// gitDirLike reports whether dir holds a HEAD file, the one file every
// git directory has (git also wants objects and refs, which a model can
// create in the same step; asking at HEAD is the safe side).
func gitDirLike(dir string) bool {
	fi, err := os.Lstat(filepath.Join(dir, "HEAD"))
	return err == nil && !fi.IsDir()
}

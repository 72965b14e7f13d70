package sandbox

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// GitDir is the name git looks for: a repository's git directory, or a
// file pointing to one (a linked worktree or a submodule).
const GitDir = ".git"

// How .git is kept read-only (Status.Git).
const (
	// GitMount: a mount namespace of the command's own, with each
	// protected path bind-mounted read-only over itself (Linux, user
	// namespaces available).
	GitMount = "mount namespace"
	// GitSplit: per-entry Landlock rules; the folder holding a protected
	// path is then not writable itself (no new top-level entries).
	GitSplit = "per-entry rules"
	// GitSeatbelt: Seatbelt deny rules (macOS).
	GitSeatbelt = "seatbelt rules"
)

// readOnly returns the paths inside the writable places that a
// WorkspaceWrite command may read but not change: Spec.ReadOnly and the
// git metadata of every writable place (its .git directory or file, the
// .git of each submodule its git folder records, at every depth, and of
// each .gitmodules names), which git obeys later
// outside the sandbox (hooks, core.fsmonitor, filters, aliases, a
// worktree's gitdir pointer). existing keeps only the paths that exist,
// resolved (what the kernel rules and mounts attach to); otherwise each
// writable place's .git is listed whether or not it exists (Seatbelt
// denies by path, so a new .git cannot be planted either).
func (s Spec) readOnly(existing bool) []string {
	if s.Policy != WorkspaceWrite {
		return nil
	}
	var out []string
	add := func(p string) {
		p = filepath.Clean(p)
		if existing {
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				return
			}
			p = real
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, p := range s.ReadOnly {
		add(p)
	}
	for _, w := range s.Writable {
		if real, err := filepath.EvalSymlinks(w); err == nil {
			w = real
		} else if existing {
			continue
		}
		add(filepath.Join(w, GitDir))
		// The submodules the protected git folder records, at every
		// depth (a command can edit .gitmodules, never .git/modules),
		// and those .gitmodules names (not checked out yet: Seatbelt
		// denies by path).
		for _, tree := range submoduleTrees(w, gitFolder(w)) {
			add(filepath.Join(tree, GitDir))
		}
		for _, sub := range submodulePaths(filepath.Join(w, ".gitmodules")) {
			add(filepath.Join(w, sub, GitDir))
		}
	}
	return out
}

// gitFolder returns the git folder of the work tree w: w/.git, or the
// folder a .git file points to ("gitdir: x", relative to w), or "" .
func gitFolder(w string) string {
	p := filepath.Join(w, GitDir)
	fi, err := os.Lstat(p)
	switch {
	case err != nil:
		return ""
	case fi.IsDir():
		return p
	case !fi.Mode().IsRegular():
		return ""
	}
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(io.LimitReader(f, 4096)).ReadString('\n')
	dir, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if dir = strings.TrimSpace(dir); !ok || dir == "" {
		return ""
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(w, dir)
	}
	return filepath.Clean(dir)
}

// maxGitmodules bounds the .gitmodules read: it is workspace content.
const maxGitmodules = 64 << 10

// submodulePaths returns the relative paths a .gitmodules file gives its
// submodules ("path = x" lines), skipping any that would leave the folder.
func submodulePaths(file string) []string {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(io.LimitReader(f, maxGitmodules))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok || strings.TrimSpace(k) != "path" {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"`)
		if v == "" || filepath.IsAbs(v) || !filepath.IsLocal(v) {
			continue
		}
		out = append(out, filepath.Clean(v))
	}
	return out
}

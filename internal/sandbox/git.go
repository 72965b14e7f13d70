package sandbox

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/olly-agent/olly/internal/workspace"
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
// each .gitmodules names), which git obeys later outside the sandbox
// (hooks, core.fsmonitor, filters, aliases, a worktree's gitdir pointer).
// existing keeps only the paths that exist, resolved (what the kernel
// rules and mounts attach to), adds the nested repositories found inside
// the writable places (Spec.Nested, or a search now: nested.go) with
// their submodules, and the empty folder of a submodule not checked out
// (so no .git can be planted in it); otherwise each writable place's .git
// is listed whether or not it exists (Seatbelt denies by path, and its
// rule covers .git at any depth: seatbelt.go).
func (s Spec) readOnly(existing bool) []string {
	if s.Policy != WorkspaceWrite {
		return nil
	}
	if existing {
		readOnlyWalks.Add(1)
	}
	ro := &roList{existing: existing}
	for _, p := range s.ReadOnly {
		ro.add(p)
	}
	var places []string
	for _, w := range s.Writable {
		if real, err := filepath.EvalSymlinks(w); err == nil {
			w = real
		} else if existing {
			continue
		}
		places = append(places, w)
		ro.repository(w, w)
	}
	if !existing {
		return ro.out
	}
	nested := s.Nested
	if nested == nil {
		nested = findNested(s.searchPlaces(places))
	}
	for _, u := range nested.Unread {
		if slices.ContainsFunc(places, func(w string) bool { return under(filepath.Clean(u), w) }) {
			ro.add(u)
		}
	}
	for _, g := range nested.Git {
		g = filepath.Clean(g)
		i := slices.IndexFunc(places, func(w string) bool { return g != w && under(g, w) })
		if i < 0 {
			continue
		}
		ro.add(g)
		if strings.EqualFold(filepath.Base(g), GitDir) {
			ro.repository(places[i], filepath.Dir(g))
		}
	}
	return ro.out
}

// readOnlyWalks counts the readOnly(true) calls, which re-read every
// repository's submodules and index: the tests check that a plan and an
// explanation make at most one.
var readOnlyWalks atomic.Int64

// roList collects read-only paths, each once.
type roList struct {
	existing bool
	out      []string
}

func (r *roList) add(p string) {
	p = filepath.Clean(p)
	if r.existing {
		real, err := filepath.EvalSymlinks(p)
		switch {
		case err == nil:
			p = real
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			return
		}
		// Otherwise (permission denied: a command may have made a folder
		// on the way unsearchable, Landlock has no right covering chmod)
		// the path is kept as given: the mount or rule attached to it then
		// fails, or covers it, rather than the path going unprotected.
	}
	if !slices.Contains(r.out, p) {
		r.out = append(r.out, p)
	}
}

// repository adds the git metadata of the work tree tree inside the
// writable place w: its .git, and the submodules its git folder records,
// at every depth (a command can edit .gitmodules, never the git folder),
// and those its .gitmodules names (not checked out yet).
func (r *roList) repository(w, tree string) {
	r.add(filepath.Join(tree, GitDir))
	folder := gitFolder(tree)
	if folder != "" && folder != filepath.Join(tree, GitDir) && under(realOrSelf(folder), w) {
		// A .git file points to a git folder inside the place (a
		// worktree, or a clone made with --separate-git-dir): git
		// obeys its hooks and config, and its common folder's.
		r.add(folder)
		if common := workspace.CommonDir(folder); common != "" && under(realOrSelf(common), w) {
			r.add(common)
		}
	}
	for _, sub := range submoduleTrees(w, folder) {
		r.submodule(sub, true)
	}
	// The gitlinks of the index: every submodule, initialised or not,
	// as git goes by them (index.go), whatever .gitmodules says.
	links, read := indexGitlinks(folder)
	for _, sub := range links {
		r.submodule(filepath.Join(tree, sub), true)
	}
	// A path only .gitmodules names (no gitlink) is no submodule to git
	// (status and submodule update go by the index): its .git is kept
	// if there is one, but its empty folder only when the index could not
	// be read, so editing .gitmodules cannot make any empty folder
	// read-only.
	for _, sub := range submodulePaths(filepath.Join(tree, ".gitmodules")) {
		r.submodule(filepath.Join(tree, sub), !read)
	}
}

// submodule adds a submodule's .git; where it has none yet and its
// folder is empty (git makes an empty folder for a submodule it has not
// checked out) and empty may be kept, the folder itself, so no .git can
// be planted there for the person's next git status or git submodule
// update (which then run git in it).
func (r *roList) submodule(tree string, empty bool) {
	git := filepath.Join(tree, GitDir)
	if _, err := os.Lstat(git); err == nil || !r.existing {
		r.add(git)
		return
	}
	if fi, err := os.Lstat(tree); empty && err == nil && fi.IsDir() && emptyDir(tree) {
		r.add(tree)
	}
}

func emptyDir(dir string) bool {
	f, err := openDir(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	names, _ := f.Readdirnames(1)
	return len(names) == 0
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
	return workspace.GitDirFile(w, p)
}

// maxGitmodules bounds the .gitmodules read: it is workspace content.
const maxGitmodules = 64 << 10

// submodulePaths returns the relative paths a .gitmodules file gives its
// submodules ("path = x" lines), skipping any that would leave the folder.
func submodulePaths(file string) []string {
	f, _, err := workspace.OpenRegular(file)
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

// readDir is os.ReadDir through openDir (sorted by name).
func readDir(dir string) ([]fs.DirEntry, error) {
	f, err := openDir(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

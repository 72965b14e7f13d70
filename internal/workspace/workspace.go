// Package workspace is the one place olly turns a path that a model or a
// person typed into a file on disk, and the one place that decides whether
// that file may be touched: nothing is read or written outside the workspace
// roots unless the person allowed the directory for the session (DESIGN §5).
//
// Every tool resolves through Resolve or ResolveForWrite; search and listing
// walk through Walk, which applies the same boundary to symbolic links and
// honours .gitignore files through an Ignorer.
package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Root is one folder of the workspace.
type Root struct {
	// Name is the folder's display name (its base name, made unique among
	// the roots). Multi-root display paths start with it, and a bare Name
	// addresses the root itself (seed 000, "Path Resolution").
	Name string
	// Path is absolute, cleaned, with every symbolic link resolved.
	Path string
	// CaseInsensitive reports that the file system holding the root
	// ignores case (macOS and Windows by default), so boundary checks
	// compare without case.
	CaseInsensitive bool
}

// Workspace holds the roots and the directories the person allowed beyond
// them. It is safe for concurrent use.
type Workspace struct {
	roots          []Root
	home           string
	homeErr        error
	fold           *bool
	globalExcludes string

	extra     []string // WithExtraRoots, as given; allowed by New
	protected []string // WithProtected, resolved

	mu      sync.RWMutex
	allowed []Root // Name is empty: allowed directories are not addressable by name
}

// Option configures New.
type Option func(*Workspace)

// WithHome sets the directory "~" expands to. Without it New asks the
// operating system; tests inject a temporary directory.
func WithHome(dir string) Option {
	return func(w *Workspace) { w.home, w.homeErr = dir, nil }
}

// WithCaseInsensitive forces case-insensitive (on) or case-sensitive (off)
// comparison for every root and allowed directory instead of probing the
// file system. Linux file systems are normally case-sensitive; this lets
// tests simulate a macOS or Windows volume.
func WithCaseInsensitive(on bool) Option {
	return func(w *Workspace) { w.fold = &on }
}

// WithGlobalExcludesFile adds a git global excludes file (core.excludesFile)
// to every Ignorer the workspace builds. See GlobalExcludesFile.
func WithGlobalExcludesFile(path string) Option {
	return func(w *Workspace) { w.globalExcludes = path }
}

// WithExtraRoots widens the workspace by directories the person named in
// advance (--add-dir, the user-level setting workspace.extraRoots): they are
// allowed from the start, as if the person had approved each (see Allow),
// and Dirs lists them after the roots. Each may be absolute, start with "~" or be
// relative to the primary root, and must exist: New fails otherwise.
func WithExtraRoots(dirs ...string) Option {
	return func(w *Workspace) { w.extra = append(w.extra, dirs...) }
}

// New builds a workspace from root directories; the first is the primary
// root, which relative paths fall back to. Each root must exist and be a
// directory. Duplicate roots are dropped.
func New(roots []string, opts ...Option) (*Workspace, error) {
	if len(roots) == 0 {
		return nil, fmt.Errorf("workspace: no root directory given; open olly inside a project directory or pass --cwd")
	}
	w := &Workspace{}
	w.home, w.homeErr = os.UserHomeDir()
	for _, o := range opts {
		o(w)
	}
	used := map[string]bool{}
	for _, r := range roots {
		dir, err := w.realDir(r)
		if err != nil {
			return nil, fmt.Errorf("workspace root: %w", err)
		}
		if w.hasRoot(dir) {
			continue
		}
		name := uniqueName(rootName(dir), used)
		used[name] = true
		w.roots = append(w.roots, Root{Name: name, Path: dir, CaseInsensitive: w.caseInsensitive(dir)})
	}
	for _, d := range w.extra {
		if strings.TrimSpace(d) == "" {
			continue
		}
		if err := w.Allow(d); err != nil {
			return nil, fmt.Errorf("workspace: extra root (--add-dir or workspace.extraRoots) %q: %w; create it or remove it from the list", d, err)
		}
	}
	return w, nil
}

// Dirs returns every directory the workspace covers, which commands run
// for the agent may write in (the sandbox follows it): the roots, primary
// first, then the extra roots, then the directories a person allowed this
// session. It is read at each call, since a person may allow more.
func (w *Workspace) Dirs() []string {
	out := w.rootPaths()
	return append(out, w.Allowed()...)
}

// Roots returns the workspace roots, primary first.
func (w *Workspace) Roots() []Root {
	return append([]Root(nil), w.roots...)
}

// Primary returns the primary root.
func (w *Workspace) Primary() Root { return w.roots[0] }

// MultiRoot reports whether the workspace has more than one root, in which
// case display paths carry the root's name as their first segment.
func (w *Workspace) MultiRoot() bool { return len(w.roots) > 1 }

// Allow lets the session read and write inside dir, a directory outside the
// roots the person approved (the approval flow offers it from an
// OutsideError). dir may be absolute, start with "~", or be relative to the
// primary root; it must exist. Its symbolic links are resolved, so allowing
// a link allows its target.
func (w *Workspace) Allow(dir string) error {
	p, err := w.normalize(dir)
	if err != nil {
		return fmt.Errorf("allow directory: %w", err)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.roots[0].Path, p)
	}
	real, err := w.realDir(p)
	if err != nil {
		return fmt.Errorf("allow directory: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, a := range w.allowed {
		if _, ok := within(real, a.Path, a.CaseInsensitive); ok {
			return nil
		}
	}
	w.allowed = append(w.allowed, Root{Path: real, CaseInsensitive: w.caseInsensitive(real)})
	return nil
}

// Allowed returns the directories allowed with Allow, in the order allowed.
func (w *Workspace) Allowed() []string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	out := make([]string, len(w.allowed))
	for i, a := range w.allowed {
		out[i] = a.Path
	}
	return out
}

// Contains reports whether abs, once its symbolic links are resolved, lies
// inside a root or an allowed directory. abs need not exist (a file about to
// be created); a relative abs is taken relative to the primary root.
func (w *Workspace) Contains(abs string) bool {
	p, err := w.normalize(abs)
	if err != nil {
		return false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.roots[0].Path, p)
	}
	_, _, err = w.locate(p, p)
	return err == nil
}

// Rel returns the display form of an absolute path: slash-separated and
// relative to the root holding it ("." for a single root itself), prefixed
// with the root's name in a multi-root workspace ("backend/src/main.go").
// A path outside every root is returned absolute, with forward slashes. Rel
// is lexical: pass a resolved path such as Path.Abs or Entry.Path.
func (w *Workspace) Rel(abs string) string {
	r, rest, ok := w.rootOf(filepath.Clean(abs))
	if !ok {
		return filepath.ToSlash(abs)
	}
	return w.display(r, filepath.ToSlash(rest))
}

// display joins a root and a slash path relative to it into the display form.
func (w *Workspace) display(r Root, rel string) string {
	if !w.MultiRoot() {
		if rel == "" {
			return "."
		}
		return rel
	}
	if rel == "" {
		return r.Name
	}
	return r.Name + "/" + rel
}

// rootOf finds the innermost root holding the cleaned absolute path p and
// returns p relative to it ("" for the root itself).
func (w *Workspace) rootOf(p string) (Root, string, bool) {
	best, bestRest, found := Root{}, "", false
	for _, r := range w.roots {
		if rest, ok := within(p, r.Path, r.CaseInsensitive); ok && (!found || len(r.Path) > len(best.Path)) {
			best, bestRest, found = r, rest, true
		}
	}
	return best, bestRest, found
}

// areaOf is rootOf extended to the allowed directories. root reports
// whether the area is a workspace root.
func (w *Workspace) areaOf(p string) (a Root, rest string, root, ok bool) {
	if r, rest, ok := w.rootOf(p); ok {
		return r, rest, true, true
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	for _, d := range w.allowed {
		if r, in := within(p, d.Path, d.CaseInsensitive); in && (!ok || len(d.Path) > len(a.Path)) {
			a, rest, ok = d, r, true
		}
	}
	return a, rest, false, ok
}

func (w *Workspace) hasRoot(dir string) bool {
	for _, r := range w.roots {
		if r.Path == dir {
			return true
		}
	}
	return false
}

// realDir resolves dir (absolute or relative to the process directory) to
// an existing directory with its symbolic links resolved.
func (w *Workspace) realDir(dir string) (string, error) {
	if dir == "" {
		return "", fmt.Errorf("empty directory name")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	return real, nil
}

// rootName is the display name of a root directory.
func rootName(dir string) string {
	name := filepath.Base(dir)
	if name == "" || name == "." || strings.ContainsRune(name, filepath.Separator) {
		return "root"
	}
	return name
}

// uniqueName keeps root names distinct, because a name addresses a root:
// a second "app" becomes "app-2".
func uniqueName(name string, used map[string]bool) string {
	if !used[name] {
		return name
	}
	for i := 2; ; i++ {
		if n := name + "-" + strconv.Itoa(i); !used[n] {
			return n
		}
	}
}

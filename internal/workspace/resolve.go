package workspace

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Path is a resolved path inside the workspace (or an allowed directory).
type Path struct {
	// Abs is absolute and clean, with symbolic links resolved: the file
	// to open. Opening Abs rather than the path as typed means a link is
	// never followed past the check.
	Abs string
	// Rel is the display form (see Workspace.Rel); for a path in an
	// allowed directory outside the roots it is absolute.
	Rel string
	// Root is the name of the root holding Abs, or "" when Abs lies in a
	// directory allowed with Allow.
	Root string
	// InRoot is Abs relative to its root or allowed directory,
	// slash-separated, "." for the directory itself. Sensitive-file rules
	// are matched against it.
	InRoot string
	// Info describes Abs (never a link); nil when it does not exist yet.
	Info fs.FileInfo
	// CaseInsensitive reports that Abs lies on a file system that ignores
	// case; match rules without case then (safety.EvaluateFileFold).
	CaseInsensitive bool
}

// Exists reports whether the path exists.
func (p Path) Exists() bool { return p.Info != nil }

// IsDir reports whether the path is an existing directory.
func (p Path) IsDir() bool { return p.Info != nil && p.Info.IsDir() }

// Resolve resolves a path to read or list: absolute, "~/…", or relative
// to the workspace (see docs/workspace.md for the order in which roots are
// tried). It fails with a *NotFoundError when nothing exists there, an
// *OutsideError when the path leads outside the workspace, or an error
// wrapping ErrInvalidPath or ErrSymlinkLoop.
func (w *Workspace) Resolve(p string) (Path, error) {
	r, _, err := w.resolve(p)
	if err != nil {
		return Path{}, err
	}
	if !r.Exists() {
		return Path{}, &NotFoundError{Path: p, Resolved: r.Abs, Roots: w.rootPaths()}
	}
	return r, nil
}

// ResolveForWrite resolves a path to create or overwrite. The target need
// not exist; the same boundary applies as for reading. It refuses an
// existing directory and a path that continues below a file.
func (w *Workspace) ResolveForWrite(p string) (Path, error) {
	r, d, err := w.resolve(p)
	if err != nil {
		return Path{}, err
	}
	if r.IsDir() {
		return Path{}, fmt.Errorf("cannot write %q: %w; give a file name inside it", p, ErrIsDir)
	}
	if d.blocked != "" {
		return Path{}, fmt.Errorf("cannot create %q: %s is a file, so nothing can be created below it: %w", p, w.Rel(d.blocked), ErrNotDir)
	}
	if err := w.checkProtected(p, r.Abs); err != nil {
		return Path{}, err
	}
	return r, nil
}

func (w *Workspace) resolve(p string) (Path, onDisk, error) {
	clean, err := w.normalize(p)
	if err != nil {
		return Path{}, onDisk{}, err
	}
	return w.locate(p, w.candidate(clean))
}

// normalize rejects what can never be a path and expands "~". Surrounding
// white space is dropped: models often add a newline, and file names that
// begin or end with a space are rare enough to give up.
func (w *Workspace) normalize(p string) (string, error) {
	p = strings.TrimSpace(p)
	switch {
	case p == "":
		return "", fmt.Errorf(`%w: the path is empty; give a path relative to the workspace root such as src/main.go, or "." for the root`, ErrInvalidPath)
	case strings.IndexByte(p, 0) >= 0:
		return "", fmt.Errorf("%w: %q contains a NUL byte, which no file name can hold", ErrInvalidPath, p)
	case len(p) > maxPathLen():
		return "", fmt.Errorf("%w: the path is %d bytes long and the operating system accepts at most %d", ErrInvalidPath, len(p), maxPathLen())
	}
	if p == "~" || strings.HasPrefix(p, "~/") || (filepath.Separator != '/' && strings.HasPrefix(p, "~"+string(filepath.Separator))) {
		if w.home == "" {
			return "", fmt.Errorf("%w: cannot expand ~ because the home directory is unknown (%v); give an absolute path", ErrInvalidPath, w.homeErr)
		}
		p = w.home + p[1:]
	}
	return filepath.Clean(filepath.FromSlash(p)), nil
}

// candidate picks the absolute path a clean path means, in seed 000's
// order ("Path Resolution", resolveMultiRootPath). Only existence is
// consulted here; the boundary is enforced afterwards on the result.
func (w *Workspace) candidate(p string) string {
	if filepath.IsAbs(p) {
		return p // 1. absolute
	}
	first, rest, _ := strings.Cut(p, string(filepath.Separator))
	primary := w.roots[0]
	if !w.MultiRoot() {
		return w.singleRoot(primary, p, first, rest)
	}
	if rest == "" { // 3. a bare folder name is that root, before any join (pitfall #25)
		if r, ok := w.rootNamed(p); ok {
			return r.Path
		}
	}
	for _, r := range w.roots { // 4. primary, 5. the other roots
		if c := filepath.Join(r.Path, p); exists(c) {
			return c
		}
	}
	if r, ok := w.rootNamed(first); ok && rest != "" {
		// 6. folder-name prefix. The seed required the rest to exist
		// there and otherwise joined the whole path to the primary,
		// doubling the name for a new "backend/x.go" (pitfall #25). olly
		// also strips it for a path that exists nowhere yet: multi-root
		// display paths carry the root's name, so that is what it means.
		return filepath.Join(r.Path, rest)
	}
	return filepath.Join(primary.Path, p) // 7. fallback
}

// singleRoot is step 2, the single-root fast path. The seed maps the
// root's own name to the root (list_files(path="myproject")); olly does so
// only when the root has no entry of that name, so a real subdirectory
// named like the project (django/django) stays reachable.
func (w *Workspace) singleRoot(r Root, p, first, rest string) string {
	full := filepath.Join(r.Path, p)
	if !r.nameIs(first) || exists(full) {
		return full
	}
	if rest == "" {
		return r.Path // 2a. the root's own name
	}
	// 2b. strip a folder-name prefix, unless the root really has a
	// subdirectory of that name (then the path is taken as written).
	if stripped := filepath.Join(r.Path, rest); exists(stripped) || !exists(filepath.Join(r.Path, first)) {
		return stripped
	}
	return full
}

// locate resolves cand on disk and enforces the boundary. given is the
// path as the caller wrote it, for messages.
func (w *Workspace) locate(given, cand string) (Path, onDisk, error) {
	if len(cand) > maxPathLen() {
		return Path{}, onDisk{}, fmt.Errorf("%w: %q becomes %d bytes long inside the workspace and the operating system accepts at most %d", ErrInvalidPath, given, len(cand), maxPathLen())
	}
	start, _, _, _ := w.areaOf(cand)
	d, err := resolveOnDisk(cand, start.Path, start.CaseInsensitive)
	if err != nil {
		return Path{}, d, err
	}
	a, rest, isRoot, ok := w.areaOf(d.path)
	if !ok {
		return Path{}, d, w.outside(given, d)
	}
	if a.CaseInsensitive && a.Path != start.Path {
		// Reached through a link from elsewhere: resolve again from the
		// area so the names below it take their on-disk spelling.
		if d, err = resolveOnDisk(d.path, a.Path, true); err != nil {
			return Path{}, d, err
		}
		if a, rest, isRoot, ok = w.areaOf(d.path); !ok {
			return Path{}, d, w.outside(given, d)
		}
	}
	rel := filepath.ToSlash(rest)
	out := Path{Abs: d.path, Info: d.info, CaseInsensitive: a.CaseInsensitive, InRoot: rel}
	if rel == "" {
		out.InRoot = "."
	}
	if isRoot {
		out.Root, out.Rel = a.Name, w.display(a, rel)
	} else {
		out.Rel = filepath.ToSlash(d.path)
	}
	return out, d, nil
}

func (w *Workspace) outside(given string, d onDisk) *OutsideError {
	dir := d.dir
	if d.info != nil && d.info.IsDir() {
		dir = d.path
	}
	return &OutsideError{Path: given, Resolved: d.path, Dir: dir, Roots: w.rootPaths()}
}

func (w *Workspace) rootNamed(name string) (Root, bool) {
	for _, r := range w.roots {
		if r.nameIs(name) {
			return r, true
		}
	}
	return Root{}, false
}

func (r Root) nameIs(s string) bool {
	return s == r.Name || (r.CaseInsensitive && strings.EqualFold(s, r.Name))
}

func (w *Workspace) rootPaths() []string {
	out := make([]string, len(w.roots))
	for i, r := range w.roots {
		out[i] = r.Path
	}
	return out
}

// exists reports whether a name exists at p, without following a final
// link: a dangling link is still the entry the caller named, and the
// boundary check decides where it leads.
func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// roots are the workspace directories commands may run in; the first is
// the primary root, where a session starts and where it returns when a
// command leaves the workspace.
type roots struct {
	paths []string // cleaned, as given
	real  []string // with symlinks resolved, for containment checks
}

func newRoots(paths []string) (roots, error) {
	if len(paths) == 0 {
		return roots{}, fmt.Errorf("shell: no workspace roots given; pass at least the workspace directory")
	}
	var r roots
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return roots{}, fmt.Errorf("shell: workspace root %q is not an absolute path", p)
		}
		p = filepath.Clean(p)
		fi, err := os.Stat(p)
		if err != nil {
			return roots{}, fmt.Errorf("shell: workspace root: %w", err)
		}
		if !fi.IsDir() {
			return roots{}, fmt.Errorf("shell: workspace root %s is not a directory", p)
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return roots{}, fmt.Errorf("shell: workspace root: %w", err)
		}
		r.paths = append(r.paths, p)
		r.real = append(r.real, real)
	}
	return r, nil
}

func (r roots) primary() string { return r.paths[0] }

// contains reports whether the absolute path dir lies inside a root, after
// following symlinks (a link inside the workspace that points out of it
// leads outside).
func (r roots) contains(dir string) bool {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = filepath.Clean(dir)
	}
	return r.containsReal(real)
}

// containsAt is contains for dir, the working directory bash pid reported:
// where the kernel's name for that process's working directory is dir
// itself, dir has no symbolic link in it (the kernel names directories,
// never links), so it is its own resolved path: one readlink instead of
// an lstat per component of it. Otherwise (bash's directory is another,
// removed, behind a link, or /proc is missing) as contains. The kernel
// names a removed directory "PATH (deleted)": no path at all, which a
// command can make a link that leaves (PWD set to that name), so such a
// name is resolved too. (A name relative to another root cannot come:
// bash shares olly's root and mount namespace, and only bash's own cd
// moves its directory.)
func (r roots) containsAt(pid int, dir string) bool {
	if pid > 0 && filepath.Clean(dir) == dir && !strings.HasSuffix(dir, deletedSuffix) {
		if cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd"); err == nil && cwd == dir {
			return r.containsReal(dir)
		}
	}
	return r.contains(dir)
}

// deletedSuffix ends the kernel's name for a removed directory.
const deletedSuffix = " (deleted)"

// containsReal reports whether real, a clean absolute path with no
// symbolic link in it, lies inside a root.
func (r roots) containsReal(real string) bool {
	for _, root := range r.real {
		if within(root, real) {
			return true
		}
	}
	return false
}

// within reports whether p is root or below it; both are clean and
// absolute.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolve turns a command's requested cwd into a directory. A relative path
// is taken from the primary root, or from another root when its first
// element names that root (multi-root workspaces, as the model sees them:
// "backend/src"). The reason is non-empty when the directory cannot be
// used; it is written for the model, which can fix it.
func (r roots) resolve(req string) (dir, reason string) {
	if filepath.IsAbs(req) {
		dir = filepath.Clean(req)
	} else {
		dir = filepath.Join(r.primary(), req)
		if _, err := os.Stat(dir); err != nil {
			if alt, ok := r.byName(req); ok {
				dir = alt
			}
		}
	}
	if !r.contains(dir) {
		return "", fmt.Sprintf("cwd %q is outside the workspace (%s); pass a directory inside it, relative to %s",
			req, strings.Join(r.paths, ", "), r.primary())
	}
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return "", fmt.Sprintf("cwd %q does not exist (looked for %s); pass an existing directory relative to %s", req, dir, r.primary())
	case !fi.IsDir():
		return "", fmt.Sprintf("cwd %q is a file, not a directory", req)
	}
	return dir, ""
}

// byName resolves "name/rest" against the secondary root whose base name
// is name.
func (r roots) byName(rel string) (string, bool) {
	first, rest, _ := strings.Cut(filepath.ToSlash(filepath.Clean(rel)), "/")
	for _, p := range r.paths[1:] {
		if filepath.Base(p) == first {
			return filepath.Join(p, filepath.FromSlash(rest)), true
		}
	}
	return "", false
}

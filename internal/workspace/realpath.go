package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// maxSymlinkHops matches Linux's MAXSYMLINKS: more links than this on one
// path is a loop.
const maxSymlinkHops = 40

// onDisk is what resolving a path against the file system found.
type onDisk struct {
	// path is absolute and clean, with every symbolic link on the way
	// resolved; the components after the first missing one are lexical.
	path string
	// info describes path (never a link), nil when it does not exist.
	info fs.FileInfo
	// dir is the deepest existing directory reached on the way.
	dir string
	// blocked is an existing non-directory that the path continues
	// below ("main.go/x"), or "".
	blocked string
}

// resolveOnDisk resolves the symbolic links of p, an absolute clean path,
// one component at a time, so that a path that does not exist yet is
// resolved as far as it exists and the rest re-appended, and a dangling
// link is followed to where a write would land. start is a prefix of p
// already known to be real (a root), or "" to begin at the volume root;
// fold makes names match the directory entries without case and takes
// their on-disk spelling.
func resolveOnDisk(p, start string, fold bool) (onDisk, error) {
	var rest string
	if start == "" {
		vol := filepath.VolumeName(p)
		start, rest = vol+string(filepath.Separator), p[len(vol):]
	} else {
		rest, _ = within(p, start, fold)
	}
	r := onDisk{path: start, dir: start}
	todo := splitPath(rest)
	hops, missing := 0, 0 // missing: components appended after the first one that does not exist
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch {
		case c == "" || c == ".":
			continue
		case c == "..":
			r.path = filepath.Dir(r.path)
			if missing > 0 {
				// Back in existing territory: later components are looked
				// up again, so a link there cannot be skipped.
				if missing--; missing == 0 {
					r.blocked = ""
				}
			} else {
				r.dir = r.path
			}
			r.info = nil
			continue
		case missing > 0:
			r.path = filepath.Join(r.path, c)
			missing++
			continue
		}
		name := c
		if fold {
			name = onDiskName(r.path, c)
		}
		next := filepath.Join(r.path, name)
		fi, err := os.Lstat(next)
		switch {
		case err == nil:
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			if r.info != nil && !r.info.IsDir() {
				r.blocked = r.path
			}
			r.path, r.info, missing = next, nil, 1
			continue
		case errors.Is(err, syscall.ENAMETOOLONG):
			return r, fmt.Errorf("%w: a name in %s is longer than the file system allows; use a shorter name", ErrInvalidPath, p)
		default:
			return r, fmt.Errorf("check %s: %w", next, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			r.path, r.info = next, fi
			if fi.IsDir() {
				r.dir = next
			}
			continue
		}
		if hops++; hops > maxSymlinkHops {
			return r, fmt.Errorf("%w: resolving %s (a symbolic link points back at itself or at another link in a cycle); fix or remove the link", ErrSymlinkLoop, p)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return r, fmt.Errorf("read symbolic link %s: %w", next, err)
		}
		if filepath.IsAbs(target) {
			vol := filepath.VolumeName(target)
			r.path, r.dir, r.info = vol+string(filepath.Separator), vol+string(filepath.Separator), nil
			target = target[len(vol):]
		}
		todo = append(splitPath(target), todo...)
	}
	if missing == 0 && r.info == nil {
		fi, err := os.Stat(r.path)
		if err != nil {
			return r, fmt.Errorf("check %s: %w", r.path, err)
		}
		r.info = fi
	}
	return r, nil
}

// splitPath splits a path into its components, dropping empty ones.
func splitPath(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r < utf8.RuneSelf && os.IsPathSeparator(uint8(r)) })
}

// onDiskName returns the spelling of name in dir's entries on a
// case-insensitive file system: the exact name if present, else the first
// entry equal to it without case, else name itself (a file to be created).
// Matching sensitive-file rules against the on-disk spelling stops ".ENV"
// slipping past "**/.env*".
func onDiskName(dir, name string) string {
	f, err := os.Open(dir)
	if err != nil {
		return name
	}
	names, err := f.Readdirnames(-1)
	_ = f.Close()
	if err != nil {
		return name
	}
	if slices.Contains(names, name) {
		return name
	}
	slices.Sort(names)
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return n
		}
	}
	return name
}

// within reports whether the clean absolute path p is dir or lies below
// it, and returns the rest of p after dir ("" for dir itself). fold
// compares without case. A false answer on exotic case folds (where the
// two spellings differ in length) errs on the side of refusing.
func within(p, dir string, fold bool) (string, bool) {
	if len(p) < len(dir) {
		return "", false
	}
	head := p[:len(dir)]
	if head != dir && (!fold || !strings.EqualFold(head, dir)) {
		return "", false
	}
	switch {
	case len(p) == len(dir):
		return "", true
	case os.IsPathSeparator(dir[len(dir)-1]): // the volume root
		return p[len(dir):], true
	case os.IsPathSeparator(p[len(dir)]):
		return p[len(dir)+1:], true
	}
	return "", false
}

// caseInsensitive decides how to compare paths under dir: as forced by
// WithCaseInsensitive, else by probing whether the case-swapped spelling of
// dir's last lettered component names the same directory, else by the
// operating system's usual default.
func (w *Workspace) caseInsensitive(dir string) bool {
	if w.fold != nil {
		return *w.fold
	}
	parts := strings.Split(dir, string(filepath.Separator))
	for i := len(parts) - 1; i >= 0; i-- {
		swapped := swapCase(parts[i])
		if swapped == parts[i] {
			continue
		}
		probe := strings.Join(append(append(parts[:i:i], swapped), parts[i+1:]...), string(filepath.Separator))
		a, errA := os.Stat(dir)
		b, errB := os.Stat(probe)
		return errA == nil && errB == nil && os.SameFile(a, b)
	}
	switch runtime.GOOS {
	case "darwin", "ios", "windows":
		return true
	}
	return false
}

func swapCase(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsUpper(r) {
			return unicode.ToLower(r)
		}
		return unicode.ToUpper(r)
	}, s)
}

// maxPathLen is the longest path the operating system accepts, in bytes
// (PATH_MAX less the terminating NUL). Checking it first turns an
// ENAMETOOLONG deep in a syscall into a clear message.
func maxPathLen() int {
	switch runtime.GOOS {
	case "darwin", "ios", "freebsd", "openbsd", "netbsd", "dragonfly":
		return 1023
	case "windows":
		return 32767
	}
	return 4095
}

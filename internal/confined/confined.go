// Package confined reads the small files olly takes from places it does
// not control — skills, custom commands, instruction files — with one set
// of guards: the file's real path (every link resolved) must stay in its
// scope (a folder, the workspace), only regular files are read (a FIFO
// would block the read forever, a device never end), and a size cap is
// checked before anything is read into memory.
//
// Places is the one list of where definitions are looked for: the
// workspace's .olly/<kind>/ and .claude/<kind>/ (Claude Code's), then
// olly's configuration directory's <kind>/ (~/.config/olly/<kind>/).
package confined

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/olly-agent/olly/internal/workspace"
)

// The reasons a read is refused; errors wrap them, so errors.Is tells them
// apart.
var (
	// ErrOutside: the real path leads out of the scope's folder.
	ErrOutside = errors.New("leads out of its folder")
	// ErrOutsideWorkspace: the real path leads out of the workspace.
	ErrOutsideWorkspace = errors.New("a link out of the workspace")
	// ErrNotRegular: a directory, FIFO, socket or device (the file is
	// opened without waiting: workspace.OpenRegular).
	ErrNotRegular = workspace.ErrNotRegular
	// ErrTooLarge: over the cap given to ReadFile.
	ErrTooLarge = errors.New("too large")
)

// Scope says where a file's real path must lie. The zero Scope allows any
// place (the person's own files, which are theirs wherever links lead).
type Scope struct {
	// Dir, when set, is a folder the file must be inside.
	Dir string
	// InWorkspace requires the file to be inside Workspace (as every tool
	// decides); a nil Workspace then refuses every file.
	InWorkspace bool
	Workspace   *workspace.Workspace
}

// Resolve returns path's real location, every link resolved, when it lies
// in s; an error saying why not otherwise (a missing file's satisfies
// errors.Is(err, fs.ErrNotExist)).
func Resolve(path string, s Scope) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	if s.Dir != "" && !within(s.Dir, real) {
		return "", fmt.Errorf("%s: %w", path, ErrOutside)
	}
	if s.InWorkspace && (s.Workspace == nil || !s.Workspace.Contains(real)) {
		return "", fmt.Errorf("%s: %w", path, ErrOutsideWorkspace)
	}
	return real, nil
}

// within reports whether real lies in dir (dir itself included), with
// dir's own links resolved too.
func within(dir, real string) bool {
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	r, err := filepath.Rel(dir, real)
	return err == nil && !filepath.IsAbs(r) && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// Join is dir/rel for a path a model or a file gave: rel must be relative
// and not empty. Whether it stays in dir is Resolve's to say (with
// Scope.Dir), since a link can lead out as well as "..".
func Join(dir, rel string) (string, error) {
	if rel == "" || filepath.IsAbs(rel) || filepath.VolumeName(rel) != "" {
		return "", fmt.Errorf("give a path relative to the folder, not %q", rel)
	}
	return filepath.Join(dir, filepath.FromSlash(rel)), nil
}

// ReadFile reads path when it is a regular file in s of at most limit
// bytes; a larger file is refused without being read (ErrTooLarge).
func ReadFile(path string, s Scope, limit int64) ([]byte, error) {
	data, _, err := read(path, s, limit, true)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit { // it grew since its size was checked
		return nil, tooLarge(path, int64(len(data)), limit)
	}
	return data, nil
}

// ReadHead reads the first limit bytes of path when it is a regular file
// in s; cut says the file is longer, size is its size on disk.
func ReadHead(path string, s Scope, limit int64) (data []byte, size int64, cut bool, err error) {
	data, size, err = read(path, s, limit, false)
	if err != nil {
		return nil, 0, false, err
	}
	if int64(len(data)) > limit {
		return data[:limit], size, true, nil
	}
	return data, size, false, nil
}

// read reads at most limit+1 bytes of path (the byte past the cap tells a
// file that grew since its size was checked), refusing what is out of s
// or not a regular file, and with whole a file larger than limit before
// reading it.
func read(path string, s Scope, limit int64, whole bool) ([]byte, int64, error) {
	real, err := Resolve(path, s)
	if err != nil {
		return nil, 0, err
	}
	f, info, err := workspace.OpenRegularNoFollow(real)
	if errors.Is(err, ErrNotRegular) {
		err = fmt.Errorf("%s: %w", path, ErrNotRegular) // named as the caller knows it
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	if whole && info.Size() > limit {
		return nil, 0, tooLarge(path, info.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	return data, info.Size(), nil
}

func tooLarge(path string, size, limit int64) error {
	return fmt.Errorf("%s: %d bytes, at most %d are read: %w", path, size, limit, ErrTooLarge)
}

package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/tools"
	"github.com/olly-agent/olly/internal/workspace"
)

// The scratch directory (seed: scratchpadDirectory) is where the
// orchestrator puts throwaway files — an experiment, a script run once,
// notes — instead of the person's project. It lives under the state
// directory, one per session, is allowed like a directory the person
// granted (no approval to write there), is left out of checkpoints and of
// the files a run changed, and is deleted when the turn ends.

// openScratch creates the session's scratch directory and allows it. A
// failure only leaves the prompt without it (nothing may be emitted
// before turn_started).
func (r *run) openScratch() {
	base := r.cfg.ScratchDir
	if base == "" || r.t.Workspace == nil || !r.mode.orchestrator || r.depth > 0 {
		return
	}
	dir, err := OpenScratch(base, r.t.SessionID)
	if err == nil {
		err = r.t.Workspace.Allow(dir)
	}
	if err != nil {
		return
	}
	r.scratch = dir
	r.env.Snapshots = scratchSnapshots{inner: r.env.Snapshots, dir: dir}
}

// ScratchPath is the scratch directory of session id under base (the
// agent's ScratchDir), as named; OpenScratch returns it resolved.
func ScratchPath(base, id string) string { return filepath.Join(base, safeName(id)) }

// OpenScratch creates the scratch directory of session id under base if
// it is missing and returns its real path, which the caller may allow:
// base resolved, then the session's name. Anything else there (a
// symbolic link, a file: something a command or another session put in
// its place) is refused, never followed: allowing a link's target would
// let commands write wherever it points ($HOME), and closing the turn
// would delete it. The app starts a session's shell ahead with the same
// directory allowed, as the turn will.
func OpenScratch(base, id string) (string, error) {
	if err := os.MkdirAll(base, 0o700); err != nil {
		return "", err
	}
	realBase, err := filepath.EvalSymlinks(base)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(realBase, safeName(id))
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	// Tools report resolved paths (symlinks followed): so must the
	// directory they are compared with (inScratch); it must be dir itself.
	if real, rerr := filepath.EvalSymlinks(dir); !fi.IsDir() || rerr != nil || real != dir {
		return "", fmt.Errorf("scratch directory %s is not a plain directory (replaced by a link or a file?); remove it", dir)
	}
	return dir, nil
}

// closeScratch deletes the scratch directory: the path itself (a link
// put there since is removed, not followed).
func (r *run) closeScratch() {
	if r.scratch != "" {
		_ = os.RemoveAll(r.scratch) // best effort: it is olly's own temporary directory
	}
}

// inScratch reports whether p (absolute, or as a tool reported it) lies in
// the scratch directory.
func (r *run) inScratch(p string) bool {
	return r.scratch != "" && filepath.IsAbs(p) && within(filepath.Clean(p), r.scratch)
}

func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// safeName makes a session id usable as a directory name.
func safeName(id string) string {
	if id == "" {
		return "session"
	}
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 || r == ':' {
			return '_'
		}
		return r
	}, id)
}

// scratchSnapshots passes writes to the checkpoint unless they are in the
// scratch directory, which is not the person's work to review.
type scratchSnapshots struct {
	inner tools.Snapshotter
	dir   string
}

// BeforeWrite implements tools.Snapshotter.
func (s scratchSnapshots) BeforeWrite(ctx context.Context, p workspace.Path, newDirs []string) (string, error) {
	if within(filepath.Clean(p.Abs), s.dir) || s.inner == nil {
		return "", nil
	}
	return s.inner.BeforeWrite(ctx, p, newDirs)
}

// Report implements changeReporter for the checkpoint it wraps.
func (s scratchSnapshots) Report(ctx context.Context) (*event.FilesChanged, error) {
	if rep, ok := s.inner.(changeReporter); ok {
		return rep.Report(ctx)
	}
	return nil, nil
}

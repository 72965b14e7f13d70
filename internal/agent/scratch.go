package agent

import (
	"context"
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
	dir := ScratchPath(base, r.t.SessionID)
	err := os.MkdirAll(dir, 0o700)
	if err == nil {
		// Tools report resolved paths (symlinks followed): so must the
		// directory they are compared with (inScratch).
		dir, err = filepath.EvalSymlinks(dir)
	}
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
// agent's ScratchDir); app starts the session's shell ahead with it
// allowed, as the turn will.
func ScratchPath(base, id string) string { return filepath.Join(base, safeName(id)) }

// closeScratch deletes the scratch directory.
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

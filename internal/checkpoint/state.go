package checkpoint

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"

	"github.com/olly-agent/olly/internal/store"
)

// file is one snapshot under review with the three versions loaded:
// original (with kept hunks folded in), written (as the agent left it, with
// undone hunks taken out) and current (on disk).
type file struct {
	snap store.FileSnapshot
	abs  string

	orig    []byte
	written []byte
	cur     []byte
	mode    fs.FileMode // the current file's mode bits
	exists  bool

	text     bool // reviewed by hunk
	origL    []string
	writtenL []string
	spans    []span

	curChanged bool // cur must be written (or removed) to disk
	removeCur  bool
	irregular  bool // a directory, link or special file is where the file was
	done       bool // resolved by a whole-file keep or undo
	undoing    bool // the operation under way is an undo
}

// loadFile reads the current file and analyses the snapshot. A written
// content olly never recorded (the agent did not report after writing)
// is taken to be the file on disk: then the person's later edits cannot be
// told from the agent's.
func (m *Manager) loadFile(snap store.FileSnapshot) (*file, error) {
	f := &file{snap: snap, abs: m.AbsPath(snap.FilePath)}
	cur, mode, exists, err := readCurrent(f.abs)
	switch {
	case errors.Is(err, errIrregular):
		// The person put something else there: review shows it as gone,
		// and undo leaves it alone.
		f.irregular = true
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", snap.FilePath, err)
	}
	f.cur, f.mode, f.exists = cur, mode, exists
	f.orig = snap.OriginalContent // nil: a created file's empty original
	f.written = snap.WrittenContent
	if f.written == nil {
		f.written = cur
	}
	f.analyse()
	return f, nil
}

// statsOf computes a snapshot's remaining +N −N. The file on disk is read
// only when the written content was never recorded: counts are original →
// written.
func (m *Manager) statsOf(snap store.FileSnapshot) (adds, dels int, err error) {
	if snap.WrittenContent == nil {
		f, err := m.loadFile(snap) // the file on disk stands in for it
		if err != nil {
			return 0, 0, err
		}
		adds, dels = f.stats()
		return adds, dels, nil
	}
	f := &file{snap: snap, orig: snap.OriginalContent, written: snap.WrittenContent}
	f.analyse()
	adds, dels = f.stats()
	return adds, dels, nil
}

// analyse recomputes the agent's hunks, original → written.
func (f *file) analyse() {
	f.text = textual(f.orig) && textual(f.written)
	f.spans = nil
	if !f.text {
		f.origL, f.writtenL = nil, nil
		return
	}
	f.origL, f.writtenL = splitLines(f.orig), splitLines(f.written)
	f.spans = diffSpans(f.origL, f.writtenL)
}

// created reports whether the agent created the file.
func (f *file) created() bool { return !f.snap.Existed }

// wholeFile reports whether what is left to review is the file as a whole:
// a binary (or very large) file that changed, or a file the agent created
// with nothing in it.
func (f *file) wholeFile() bool {
	if f.text {
		return len(f.spans) == 0 && f.created() && len(f.orig) == 0
	}
	return f.created() || !bytes.Equal(f.orig, f.written)
}

// changeCount is how many changes are left: the hunks, 1 for a whole-file
// change, 0 when the file has nothing left to review.
func (f *file) changeCount() int {
	if f.done {
		return 0
	}
	if f.wholeFile() {
		return 1
	}
	return len(f.spans)
}

// stats are the lines the agent's remaining changes add and delete.
func (f *file) stats() (adds, dels int) {
	if f.done {
		return 0, 0
	}
	if f.text {
		return spanStats(f.spans)
	}
	if !f.wholeFile() {
		return 0, 0
	}
	return countLines(f.written), countLines(f.orig)
}

// action is "created" or "modified", as events name it.
func (f *file) action() string {
	if f.created() {
		return "created"
	}
	return "modified"
}

// resolvedStatus is the status of a file with nothing left to review:
// kept when no hunk was undone, undone when none was kept, else partial.
func (f *file) resolvedStatus() store.FileStatus {
	switch {
	case f.snap.HunksUndone == 0 && f.snap.HunksKept == 0:
		// A file with no change left to count (the agent wrote the original
		// back): it is what the person asked for.
		if f.undoing {
			return store.FileUndone
		}
		return store.FileKept
	case f.snap.HunksUndone == 0:
		return store.FileKept
	case f.snap.HunksKept == 0:
		return store.FileUndone
	}
	return store.FilePartial
}

// settle records the file's new state on its snapshot: status (resolved
// when no change is left), contents and line counts.
func (f *file) settle() {
	adds, dels := f.stats()
	f.snap.Additions, f.snap.Deletions = &adds, &dels
	f.snap.OriginalContent = f.orig
	f.snap.WrittenContent = f.written
	if f.snap.WrittenContent == nil {
		f.snap.WrittenContent = []byte{}
	}
	if f.snap.OriginalContent == nil && f.snap.Existed {
		f.snap.OriginalContent = []byte{}
	}
	if f.done || f.changeCount() == 0 {
		f.done = true
		f.snap.Status = f.resolvedStatus()
	}
}

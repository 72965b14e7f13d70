package checkpoint

import (
	"bytes"
	"errors"
	"fmt"
)

// Errors keep and undo return for a request that cannot be served; the
// message says what to do instead.
var (
	// ErrNoSuchHunk: the hunk number is not one the file has.
	ErrNoSuchHunk = errors.New("no such hunk")
	// ErrWholeFileOnly: the file is binary (or too large, or an empty new
	// file) and is kept or undone only as a whole.
	ErrWholeFileOnly = errors.New("this file is kept or undone only as a whole")
	// ErrResolved: the file was already kept or undone.
	ErrResolved = errors.New("already resolved")
)

// Conflict is a change undo left in place because the file no longer holds
// what the agent wrote there.
type Conflict struct {
	Path string `json:"path"`
	// Hunk is the 1-based hunk number, 0 for the whole file.
	Hunk   int    `json:"hunk,omitempty"`
	Reason string `json:"reason"`
}

// String renders the conflict for a person: "hunk 2: its lines were
// edited after the agent wrote them".
func (c Conflict) String() string {
	if c.Hunk == 0 {
		return c.Reason
	}
	return fmt.Sprintf("hunk %d: %s", c.Hunk, c.Reason)
}

// checkHunk validates a 1-based hunk number against the file.
func (f *file) checkHunk(n int) error {
	if f.wholeFile() || !f.text {
		return fmt.Errorf("%s: %w (binary, over %d MB, or an empty new file): keep or undo the file without --hunk",
			f.snap.FilePath, ErrWholeFileOnly, maxTextBytes>>20)
	}
	if n < 1 || n > len(f.spans) {
		return fmt.Errorf("%s has %d hunk(s), not %d: %w (see olly changes diff %s)",
			f.snap.FilePath, len(f.spans), n, ErrNoSuchHunk, f.snap.FilePath)
	}
	return nil
}

// keepHunk folds hunk n into the original; the file on disk is untouched.
func (f *file) keepHunk(n int) error {
	if err := f.checkHunk(n); err != nil {
		return err
	}
	f.orig = joinLines(keepSpan(f.origL, f.writtenL, f.spans[n-1]))
	f.snap.HunksKept++
	f.analyse()
	return nil
}

// keepAll keeps every remaining change: the original becomes what the
// agent wrote.
func (f *file) keepAll() {
	f.snap.HunksKept += f.changeCount()
	f.orig = bytes.Clone(f.written)
	f.analyse()
	f.done = true
}

// undoHunk reverts hunk n in the current file, where it still holds the
// agent's lines; otherwise it reports the conflict and changes nothing.
func (f *file) undoHunk(n int) (*Conflict, error) {
	f.undoing = true
	if err := f.checkHunk(n); err != nil {
		return nil, err
	}
	if c := f.missing(n); c != nil {
		return c, nil
	}
	if f.done {
		return nil, nil
	}
	if c := f.revert(n - 1); c != nil {
		return c, nil
	}
	f.analyse()
	f.finishUndo()
	return nil, nil
}

// undoAll reverts every remaining change the file still holds and reports
// the ones it cannot.
func (f *file) undoAll() []Conflict {
	f.undoing = true
	if c := f.missing(0); c != nil {
		return []Conflict{*c}
	}
	if !f.text {
		return f.undoWhole()
	}
	var out []Conflict
	// Bottom up: reverting a hunk changes only lines at and below it, so the
	// spans above stay valid without diffing again.
	for i := len(f.spans) - 1; i >= 0; i-- {
		if c := f.revert(i); c != nil {
			out = append([]Conflict{*c}, out...)
		}
	}
	f.analyse()
	f.finishUndo()
	return out
}

// missing handles a file the person deleted: undoing a created file is
// then done (only its directories are left to remove), while a modified
// file is a conflict, since restoring it would bring back a file the
// person removed.
func (f *file) missing(hunk int) *Conflict {
	if f.exists {
		return nil
	}
	if f.irregular {
		return &Conflict{Path: f.snap.FilePath, Hunk: hunk, Reason: reasonIrregular}
	}
	if f.created() {
		f.snap.HunksUndone += max(1, f.changeCount())
		f.written, f.orig = nil, nil
		f.analyse()
		f.removeCur, f.curChanged, f.done = true, true, true
		return nil
	}
	return &Conflict{Path: f.snap.FilePath, Hunk: hunk, Reason: reasonDeleted}
}

// revert takes span i out of the written content and the current file.
func (f *file) revert(i int) *Conflict {
	s := f.spans[i]
	curL := splitLines(f.cur)
	from, to, reason := locate(f.writtenL, curL, s)
	if reason != "" {
		return &Conflict{Path: f.snap.FilePath, Hunk: i + 1, Reason: reason}
	}
	f.cur = joinLines(splice(curL, from, to, f.origL[s.oldFrom:s.oldTo]))
	f.writtenL = revertSpan(f.origL, f.writtenL, s)
	f.written = joinLines(f.writtenL)
	f.curChanged = true
	f.snap.HunksUndone++
	return nil
}

// undoWhole undoes a binary file: only when it is still exactly what the
// agent wrote, since bytes cannot be merged.
func (f *file) undoWhole() []Conflict {
	if !f.wholeFile() {
		return nil
	}
	if !bytes.Equal(f.cur, f.written) {
		return []Conflict{{Path: f.snap.FilePath, Reason: reasonBinary}}
	}
	f.snap.HunksUndone++
	f.cur, f.written, f.curChanged = bytes.Clone(f.orig), bytes.Clone(f.orig), true
	if f.created() {
		f.removeCur = true
	}
	f.analyse()
	f.done = true
	return nil
}

// finishUndo removes a file the agent created once nothing of the agent's
// is left in it and it is empty; a file holding the person's own lines
// stays.
func (f *file) finishUndo() {
	if !f.created() || len(f.orig) != 0 || !f.text || len(f.spans) != 0 {
		return
	}
	if f.snap.HunksUndone == 0 {
		f.snap.HunksUndone++ // an empty new file, undone as a whole
	}
	if len(f.cur) == 0 {
		f.removeCur, f.curChanged = true, true
	}
	f.done = true // nothing of the agent's is left
}

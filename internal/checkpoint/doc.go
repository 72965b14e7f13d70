// Package checkpoint keeps every change the agent makes undoable: before a
// run's first write to a file it snapshots the file (created or modified,
// its bytes and mode, the directories olly creates for it), and afterwards
// the person keeps or undoes the changes by file, by hunk, or all at once.
//
// Three versions of a file matter (docs/checkpoints.md):
//
//   - original: the file before the run's first write to it, with every
//     hunk the person kept folded in;
//   - written: the file as the agent last wrote it in the run;
//   - current: the file on disk, which may hold the person's own edits.
//
// The agent's hunks are original → written. Keeping a hunk folds it into
// the original; undoing one reverts it in the current file only where the
// file still holds the agent's lines (matched by content with context), so
// the person's edits are never overwritten. A file is resolved when no hunk
// remains. Review navigation ("change X of Y") is pure computation in
// navigator.go, shared by every frontend.
package checkpoint

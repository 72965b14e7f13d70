// Package exewarm maps back, cheaply, the pages of olly's executable that
// the agent loop used in the last run.
//
// internal/exetrim makes every read-only page of the executable come back
// one page fault at a time once it is dropped, and print mode drops them
// all when its start-up is over, so that pages only start-up used stop
// counting in the resident set. The loop then faults its own pages back:
// on the slow-fault machines olly is measured on (13–25 µs per fault),
// about a hundred pages of new code in the first iterations and a hundred
// or two of the function tables the first garbage collection reads to
// scan the loop's goroutine stacks — a few ms each time, which made those
// iterations the slowest of a run (docs/performance.md, "First iterations
// and GC").
//
// Save records which of those pages are mapped when a run ends (the loop's
// working set, read from /proc/self/pagemap); Prefault, right after the
// next run's start-up trim, maps the recorded pages back in a few
// madvise(MADV_POPULATE_READ) calls, well under a microsecond per page.
// The pages are those the loop would fault in anyway, so the peak resident
// set is the same; a record of another build of olly, or one that does
// not fit the executable, is ignored. A missing or unreadable record only
// means the faults happen as before.
package exewarm

// learningKind names a record written by one run (exewarm_linux.go).
const learningKind = "learning"

// Run is one run's use of a record: Start maps its pages back, End saves a
// new record when there was none to use, and marks a learning record it
// used ready. A run that prefaulted a ready record does not save (see
// Prefault): pages mapped back and never used would be recorded again,
// and the record would only grow.
type Run struct {
	path       string
	prefaulted int
	kind       string // of the record prefaulted
}

// Start prefaults the pages the record at path names.
func Start(path string) Run {
	n, kind := prefault(path)
	return Run{path: path, prefaulted: n, kind: kind}
}

// End saves the record when Start had none to use, or only a learning one.
func (r Run) End() error {
	if r.prefaulted > 0 && r.kind != learningKind {
		return nil
	}
	return Save(r.path)
}

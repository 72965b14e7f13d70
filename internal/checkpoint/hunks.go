package checkpoint

import (
	"slices"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// span is one agent hunk, a contiguous change: original lines
// [oldFrom, oldTo) became written lines [newFrom, newTo). Unchanged lines
// separate spans, so each can be kept or undone on its own.
type span struct {
	oldFrom, oldTo int
	newFrom, newTo int
}

// diffSpans returns the changes from old to new, in order.
func diffSpans(old, new []string) []span {
	if slices.Equal(old, new) {
		return nil
	}
	var out []span
	for _, d := range lcs.DiffLines(old, new) {
		s := span{oldFrom: d.Start, oldTo: d.End, newFrom: d.ReplStart, newTo: d.ReplEnd}
		// Two changes with no unchanged line between them are one hunk: a
		// person could not keep one without the other.
		if n := len(out); n > 0 && out[n-1].oldTo == s.oldFrom && out[n-1].newTo == s.newFrom {
			out[n-1].oldTo, out[n-1].newTo = s.oldTo, s.newTo
			continue
		}
		out = append(out, s)
	}
	return out
}

// spanStats sums the lines the spans add and delete.
func spanStats(spans []span) (adds, dels int) {
	for _, s := range spans {
		adds += s.newTo - s.newFrom
		dels += s.oldTo - s.oldFrom
	}
	return adds, dels
}

// keepSpan folds span s into the original: the original gets the written
// lines, so the hunk disappears from original → written.
func keepSpan(orig, written []string, s span) []string {
	return splice(orig, s.oldFrom, s.oldTo, written[s.newFrom:s.newTo])
}

// revertSpan takes span s out of the written content: the written content
// gets the original lines back.
func revertSpan(orig, written []string, s span) []string {
	return splice(written, s.newFrom, s.newTo, orig[s.oldFrom:s.oldTo])
}

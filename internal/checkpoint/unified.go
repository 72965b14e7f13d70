package checkpoint

import (
	"fmt"
	"strings"
)

// Unified renders a file's remaining changes as a unified diff, each hunk
// header followed by its number ("@@ -12,3 +12,4 @@ hunk 2"), the number
// keep and undo take. Stale hunks say why undo would leave them.
func Unified(f FileReview) string {
	var b strings.Builder
	from, to := "a/"+f.Path, "b/"+f.Path
	if f.Action == "created" {
		from = "/dev/null"
	}
	if f.Deleted {
		to = "/dev/null"
	}
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", from, to)
	for _, h := range f.Hunks {
		if h.WholeFile {
			writeWhole(&b, f, h)
			continue
		}
		writeHunk(&b, h)
	}
	return b.String()
}

func writeWhole(b *strings.Builder, f FileReview, h Hunk) {
	switch {
	case f.Binary:
		fmt.Fprintf(b, "@@ hunk %d: binary file, +%d −%d lines; keep or undo it as a whole @@\n", h.Number, h.NewLines, h.OldLines)
	default:
		fmt.Fprintf(b, "@@ hunk %d: new empty file; keep or undo it as a whole @@\n", h.Number)
	}
}

func writeHunk(b *strings.Builder, h Hunk) {
	before, after := splitLines([]byte(h.ContextBefore)), splitLines([]byte(h.ContextAfter))
	oldN := len(before) + h.OldLines + len(after)
	newN := len(before) + h.NewLines + len(after)
	oldAt, newAt := h.OldStart-len(before), h.NewStart-len(before)
	// A range of no lines names the line before it, as diff(1) does.
	if oldN == 0 {
		oldAt--
	}
	if newN == 0 {
		newAt--
	}
	fmt.Fprintf(b, "@@ -%s +%s @@ hunk %d", rangeOf(oldAt, oldN), rangeOf(newAt, newN), h.Number)
	if h.Stale {
		fmt.Fprintf(b, " (cannot be undone: %s)", h.Reason)
	}
	b.WriteByte('\n')
	writeLines(b, ' ', before)
	writeLines(b, '-', splitLines([]byte(h.OldText)))
	writeLines(b, '+', splitLines([]byte(h.NewText)))
	writeLines(b, ' ', after)
}

func rangeOf(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

func writeLines(b *strings.Builder, prefix byte, lines []string) {
	for _, l := range lines {
		b.WriteByte(prefix)
		b.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			b.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

package checkpoint

// contextLines is how many unchanged lines on each side of a hunk must
// still read as the agent left them for undo to revert it: the person's
// edit right beside an agent hunk is a conflict, as in git apply.
const contextLines = 3

// Reasons a hunk cannot be undone.
const (
	reasonEdited  = "its lines were edited after the agent wrote them"
	reasonNearby  = "the lines around it were edited after the agent wrote them"
	reasonDeleted = "the file was deleted after the agent wrote it"
	reasonBinary  = "the binary file changed after the agent wrote it"
	// A directory, link or special file now stands where the file was.
	reasonIrregular = "it is no longer a regular file"
)

// locate finds span s, a hunk of written, in the current lines: the
// hunk's written lines with up to contextLines lines either side, exactly
// as written. A hunk whose context is cut short by the start (end) of the
// file must still sit at the start (end). Among several places the one
// nearest the hunk's own line wins. It returns the current lines [from,
// to) holding the hunk's written lines, or a reason it cannot.
func locate(written, cur []string, s span) (from, to int, reason string) {
	before := written[max(0, s.newFrom-contextLines):s.newFrom]
	mid := written[s.newFrom:s.newTo]
	after := written[s.newTo:min(len(written), s.newTo+contextLines)]
	atStart := s.newFrom < contextLines
	atEnd := s.newTo+contextLines > len(written)
	n := len(before) + len(mid) + len(after)
	want := s.newFrom - len(before)
	last := len(cur) - n // the last place the pattern fits
	if last < 0 {
		return 0, 0, missingReason(cur, mid)
	}
	fits := func(i int) bool {
		if i < 0 || i > last || (atStart && i != 0) || (atEnd && i != last) {
			return false
		}
		return equalAt(cur, i, before) && equalAt(cur, i+len(before), mid) && equalAt(cur, i+len(before)+len(mid), after)
	}
	for d := 0; d <= max(want, last-want); d++ {
		for _, i := range [2]int{want - d, want + d} {
			if fits(i) {
				from = i + len(before)
				return from, from + len(mid), ""
			}
			if d == 0 {
				break
			}
		}
	}
	return 0, 0, missingReason(cur, mid)
}

// equalAt reports whether lines[i:] starts with want.
func equalAt(lines []string, i int, want []string) bool {
	if i+len(want) > len(lines) {
		return false
	}
	for j, w := range want {
		if lines[i+j] != w {
			return false
		}
	}
	return true
}

// missingReason says why a hunk did not match: its own lines are gone, or
// only the lines around them changed.
func missingReason(cur, mid []string) string {
	if len(mid) == 0 {
		return reasonNearby
	}
	for i := 0; i+len(mid) <= len(cur); i++ {
		if equalAt(cur, i, mid) {
			return reasonNearby
		}
	}
	return reasonEdited
}

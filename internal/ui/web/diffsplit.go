package web

import (
	"strconv"
	"strings"
)

// splitRow is one row of a side-by-side diff: the old line on the left,
// the new one on the right (either may be absent), or a hunk header
// across both.
type splitRow struct {
	Header             string
	OldNo, NewNo       string
	Old, New           string
	OldClass, NewClass string
}

// splitDiff lays a unified diff out side by side: context on both sides,
// a run of deletions beside the run of additions that follows it, line
// numbers from the hunk headers. File headers (---/+++) are left out (the
// card names the file).
func splitDiff(diff string) []splitRow {
	var rows []splitRow
	var dels, adds []string
	oldNo, newNo := 0, 0
	flush := func() {
		for i := 0; i < max(len(dels), len(adds)); i++ {
			r := splitRow{}
			if i < len(dels) {
				r.OldNo, r.Old, r.OldClass = strconv.Itoa(oldNo), dels[i], "del"
				oldNo++
			} else {
				r.OldClass = "none"
			}
			if i < len(adds) {
				r.NewNo, r.New, r.NewClass = strconv.Itoa(newNo), adds[i], "add"
				newNo++
			} else {
				r.NewClass = "none"
			}
			rows = append(rows, r)
		}
		dels, adds = dels[:0], adds[:0]
	}
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "@@"):
			flush()
			oldNo, newNo = hunkStarts(l)
			rows = append(rows, splitRow{Header: l})
		case strings.HasPrefix(l, "-"):
			if len(adds) > 0 {
				flush()
			}
			dels = append(dels, l[1:])
		case strings.HasPrefix(l, "+"):
			adds = append(adds, l[1:])
		default:
			flush()
			text := strings.TrimPrefix(l, " ")
			rows = append(rows, splitRow{OldNo: strconv.Itoa(oldNo), NewNo: strconv.Itoa(newNo), Old: text, New: text, OldClass: "ctx", NewClass: "ctx"})
			oldNo++
			newNo++
		}
	}
	flush()
	return rows
}

// hunkStarts reads the first old and new line numbers of "@@ -a,b +c,d @@"
// (1 when absent or unreadable).
func hunkStarts(h string) (int, int) {
	start := func(f string) int {
		f = strings.TrimLeft(f, "-+")
		n, err := strconv.Atoi(strings.SplitN(f, ",", 2)[0])
		if err != nil || n < 0 {
			return 1
		}
		return n
	}
	f := strings.Fields(h)
	if len(f) < 3 {
		return 1, 1
	}
	return start(f[1]), start(f[2])
}

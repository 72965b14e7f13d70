package checkpoint

// Review navigation is pure arithmetic over how many changes each file
// under review has (the seed's ReviewNavigator): frontends hold a Position,
// ask for the next one, and show "change X of Y". Files with no changes are
// skipped; moves wrap around at both ends.

// Position is a change in a review: the index of its file and of the
// change within the file. NoPosition means there is nothing to review.
type Position struct {
	File int `json:"file"`
	Hunk int `json:"hunk"`
}

// NoPosition is the position of an empty review.
var NoPosition = Position{File: -1, Hunk: -1}

// Move is a navigation step.
type Move int

// Moves.
const (
	NextChange Move = iota
	PrevChange
	NextFile
	PrevFile
	FirstChange
	LastChange
)

// Total is the number of changes in the review: the Y of "change X of Y".
func Total(counts []int) int {
	n := 0
	for _, c := range counts {
		n += max(c, 0)
	}
	return n
}

// Ordinal is the 1-based number of the change at p across all files: the X
// of "change X of Y"; 0 when p is not a change.
func Ordinal(counts []int, p Position) int {
	if !valid(counts, p) {
		return 0
	}
	n := 0
	for i := 0; i < p.File; i++ {
		n += max(counts[i], 0)
	}
	return n + p.Hunk + 1
}

// At returns the position of the change numbered ordinal (1-based),
// clamped into the review.
func At(counts []int, ordinal int) Position {
	total := Total(counts)
	if total == 0 {
		return NoPosition
	}
	ordinal = min(max(ordinal, 1), total)
	for i, c := range counts {
		if ordinal <= c {
			return Position{File: i, Hunk: ordinal - 1}
		}
		ordinal -= max(c, 0)
	}
	return NoPosition // unreachable
}

// Clamp returns the nearest change to p: p itself when valid; the last
// change of p's file when its hunk index ran past the end; else the first
// change of the next file with changes (wrapping), so resolving a file
// moves on to the following one.
func Clamp(counts []int, p Position) Position {
	if Total(counts) == 0 {
		return NoPosition
	}
	if valid(counts, p) {
		return p
	}
	if p.File >= 0 && p.File < len(counts) && counts[p.File] > 0 {
		return Position{File: p.File, Hunk: min(max(p.Hunk, 0), counts[p.File]-1)}
	}
	return firstFrom(counts, max(p.File, 0))
}

// Step moves from p. From an invalid position every move starts at the
// first change (LastChange and PrevChange at the last).
func Step(counts []int, p Position, m Move) Position {
	total := Total(counts)
	if total == 0 {
		return NoPosition
	}
	if !valid(counts, p) {
		p = Clamp(counts, p)
		if m == PrevChange || m == LastChange {
			return At(counts, total)
		}
		if m != PrevFile {
			return p
		}
	}
	switch m {
	case NextChange:
		return At(counts, Ordinal(counts, p)%total+1)
	case PrevChange:
		return At(counts, (Ordinal(counts, p)+total-2)%total+1)
	case NextFile:
		return firstFrom(counts, p.File+1)
	case PrevFile:
		return lastFileBefore(counts, p.File)
	case FirstChange:
		return At(counts, 1)
	case LastChange:
		return At(counts, total)
	}
	return p
}

// valid reports whether p is a change of the review.
func valid(counts []int, p Position) bool {
	return p.File >= 0 && p.File < len(counts) && p.Hunk >= 0 && p.Hunk < counts[p.File]
}

// firstFrom is the first change of the first file with changes at index i
// or after, wrapping around.
func firstFrom(counts []int, i int) Position {
	for k := range counts {
		j := (i + k) % len(counts)
		if counts[j] > 0 {
			return Position{File: j, Hunk: 0}
		}
	}
	return NoPosition
}

// lastFileBefore is the first change of the nearest file with changes
// before index i, wrapping around.
func lastFileBefore(counts []int, i int) Position {
	n := len(counts)
	for k := 1; k <= n; k++ {
		j := ((i-k)%n + n) % n
		if counts[j] > 0 {
			return Position{File: j, Hunk: 0}
		}
	}
	return NoPosition
}

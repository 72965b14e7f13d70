package tools

import "bytes"

// scan calls fn for each line of buf that matches q, in order, with the
// line's bounds [start, end) (end at its '\n' or the buffer's end) and the
// byte column where the match starts. fn returns false to stop.
func (q *query) scan(buf []byte, fn func(start, end, col int) bool) {
	switch {
	case q.lits != nil:
		q.scanLiterals(buf, fn)
	case q.run != nil:
		q.scanRun(buf, fn)
	default:
		q.scanRegexp(buf, fn)
	}
}

// scanRun visits the lines holding a run of the pattern's required class
// and lets the engine decide on each.
func (q *query) scanRun(buf []byte, fn func(start, end, col int) bool) {
	pos := 0
	for pos < len(buf) {
		hit := q.run.find(buf, pos)
		if hit < 0 {
			return
		}
		start := pos + bytes.LastIndexByte(buf[pos:hit], '\n') + 1
		end := lineEnd(buf, hit)
		if loc := q.re.FindIndex(buf[start:end]); loc != nil {
			if !fn(start, end, loc[0]) {
				return
			}
		}
		pos = end + 1
	}
}

// scanLiterals visits the lines holding one of the literals, earliest
// first, and (for a regular expression) lets the engine decide on each.
func (q *query) scanLiterals(buf []byte, fn func(start, end, col int) bool) {
	var one [1]cursor
	cs := one[:0]
	if len(q.lits) > 1 {
		cs = make([]cursor, 0, len(q.lits))
	}
	for _, f := range q.lits {
		cs = append(cs, newCursor(f, buf))
	}
	pos := 0
	for pos <= len(buf) {
		hit := -1
		for i := range cs {
			if p := cs[i].index(pos); p >= 0 && (hit < 0 || p < hit) {
				hit = p
			}
		}
		if hit < 0 {
			return
		}
		start := pos + bytes.LastIndexByte(buf[pos:hit], '\n') + 1
		end := lineEnd(buf, hit)
		col := hit - start
		if q.re != nil {
			loc := q.re.FindIndex(buf[start:end])
			if loc == nil {
				pos = end + 1
				continue
			}
			col = loc[0]
		}
		if !fn(start, end, col) {
			return
		}
		pos = end + 1
	}
}

// scanRegexp runs the multi-line form of the pattern over the whole
// buffer, so the engine's own prefix search does the skipping, and checks
// each hit against its line alone (a match found across a line break does
// not count, but the line may still match on its own).
func (q *query) scanRegexp(buf []byte, fn func(start, end, col int) bool) {
	if len(buf) == 0 {
		return // an empty file has no lines
	}
	pos := 0
	for pos <= len(buf) {
		loc := q.reM.FindIndex(buf[pos:])
		if loc == nil {
			return
		}
		hit := pos + loc[0]
		if hit == len(buf) && hit > 0 && buf[hit-1] == '\n' {
			return // the empty "line" after the final newline is not a line
		}
		start := pos + bytes.LastIndexByte(buf[pos:hit], '\n') + 1
		end := lineEnd(buf, hit)
		if m := q.re.FindIndex(buf[start:end]); m != nil {
			if !fn(start, end, m[0]) {
				return
			}
		}
		pos = end + 1
	}
}

// lineEnd is the index of the '\n' ending the line holding i, or len(buf).
func lineEnd(buf []byte, i int) int {
	if j := bytes.IndexByte(buf[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(buf)
}

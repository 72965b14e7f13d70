package toolcall

import "strings"

// knownWatch is a parser hook for candidates: it rejects the value as soon
// as it cannot be a call of a known tool, so that prose JSON (a
// package.json, an API response shown as an example) is released for
// display without waiting for its end.
type knownWatch struct {
	known map[string]bool
	array bool // the candidate is an array of calls
	name  string
}

func (w *knownWatch) hook(depth int, key string, v *value) bool {
	callDepth := 1
	if w.array {
		callDepth = 2
		if depth == 1 && v.kind != kindObject {
			return false
		}
	}
	// "name" takes precedence over every other name field (see shapeOf),
	// so a string "name" decides.
	if depth == callDepth && key == "name" && v.kind == kindString {
		n := strings.TrimSpace(v.str)
		if !w.known[n] {
			return false
		}
		w.name = n
	}
	return true
}

// bareCall is a JSON object (or array of objects) in prose that may be a
// call: it is one when every object names a known tool.
type bareCall struct {
	from  int
	p     *parser
	watch knownWatch
}

func newBare(s *scanner, j int, array bool) *bareCall {
	b := &bareCall{from: j, p: newParser(j, false)}
	b.watch = knownWatch{known: s.known, array: array}
	b.p.hook = b.watch.hook
	return b
}

func (b *bareCall) start() int   { return b.from }
func (b *bareCall) inCall() bool { return b.watch.name != "" }
func (b *bareCall) name() string { return b.watch.name }

func (b *bareCall) advance(s *scanner) (outcome, int) {
	b.p.feed(s.buf)
	repaired := false
	switch {
	case b.p.failed():
		return released, b.p.failAt
	case b.p.open() && !s.eof:
		return needMore, 0
	case b.p.open():
		if repaired = b.p.finish(); !b.p.done() {
			return released, len(s.buf)
		}
	}
	if !allKnownCalls(b.p.root, s.known) {
		return released, b.p.pos
	}
	end := b.p.pos
	if repaired {
		end = len(s.buf)
	}
	s.record(markCut(callsFrom(b.p.root, FormatBare, repaired), b.p), b.from, end)
	return consumed, end
}

// fenceCall is a ```json fence (or one with no language) in prose. It is
// markup when it holds nothing but calls of known tools; otherwise it is
// prose, a code block the model shows.
type fenceCall struct {
	from, cur int
	p         *parser
	watch     knownWatch
	values    []*value
	repaired  bool
	cut       bool // the last value was cut off inside a value
}

func newFence(s *scanner, j, body int) *fenceCall {
	return &fenceCall{from: j, cur: body, watch: knownWatch{known: s.known}}
}

func (f *fenceCall) start() int   { return f.from }
func (f *fenceCall) inCall() bool { return f.watch.name != "" }
func (f *fenceCall) name() string { return f.watch.name }

func (f *fenceCall) advance(s *scanner) (outcome, int) {
	buf := s.buf
	for {
		if f.p != nil {
			if out, end, ok := f.feed(s); !ok {
				return out, end
			}
			continue
		}
		f.cur = skipSpace(buf, f.cur)
		if f.cur == len(buf) {
			if !s.eof {
				return needMore, 0
			}
			return f.conclude(s, len(buf))
		}
		switch buf[f.cur] {
		case '{', '[':
			f.p = newParser(f.cur, false)
			f.watch.array = buf[f.cur] == '['
			f.p.hook = f.watch.hook
			continue
		case '`':
			full, partial := matchLit(buf, f.cur, fenceTicks)
			if partial && !s.eof {
				return needMore, 0
			}
			if full {
				end := f.cur
				for end < len(buf) && buf[end] == '`' {
					end++
				}
				return f.conclude(s, end)
			}
		}
		return released, f.cur + 1
	}
}

// feed parses the current value. ok means it completed as a known call and
// the fence goes on; otherwise out and end say what the fence does.
func (f *fenceCall) feed(s *scanner) (out outcome, end int, ok bool) {
	f.p.feed(s.buf)
	switch {
	case f.p.failed():
		return released, f.p.failAt, false
	case f.p.open() && !s.eof:
		return needMore, 0, false
	case f.p.open():
		f.repaired = f.p.finish()
		f.cut = f.p.cut
		if !f.p.done() {
			return released, len(s.buf), false
		}
	}
	if !allKnownCalls(f.p.root, s.known) {
		return released, f.p.pos, false
	}
	f.values = append(f.values, f.p.root)
	f.cur = f.p.pos
	if f.repaired {
		f.cur = len(s.buf)
	}
	f.p = nil
	return 0, 0, true
}

// conclude ends the fence at end (after its closing backticks, or at the end
// of input).
func (f *fenceCall) conclude(s *scanner, end int) (outcome, int) {
	if len(f.values) == 0 {
		return released, end
	}
	var calls []Call
	for i, v := range f.values {
		// Only the last value can have been cut off.
		calls = append(calls, callsFrom(v, FormatFence, f.repaired && i == len(f.values)-1)...)
	}
	if f.cut {
		calls[len(calls)-1].Incomplete = true
	}
	s.record(calls, f.from, end)
	return consumed, end
}

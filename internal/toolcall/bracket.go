package toolcall

import (
	"bytes"
	"strings"
)

const (
	bracketArgs   = "[ARGS]"
	bracketCallID = "[CALL_ID]"
)

type bracketState uint8

const (
	bsAfter     bracketState = iota // after [TOOL_CALLS]
	bsName                          // reading the tool name (v11+ form)
	bsAfterName                     // after the name: [CALL_ID], [ARGS] or '{'
	bsCallID                        // reading the call id after [CALL_ID]
	bsArgs                          // inside the arguments object (v11+ form)
	bsPayload                       // inside a call object or array (pre-v11 form)
)

// bracketCall parses Mistral's [TOOL_CALLS] forms:
//
//	[TOOL_CALLS] [{"name": "f", "arguments": {…}, "id": "…"}, …]   tokenizers before v11
//	[TOOL_CALLS]f[ARGS]{…}                                          v11 and later
//	[TOOL_CALLS]f[CALL_ID]abc123def[ARGS]{…}                        with a call id
//	[TOOL_CALLS]f{…}                                                 [ARGS] dropped by detokenizing
//
// A single call object after the marker is accepted too. Each call of the
// v11 form carries its own marker, so one bracketCall covers one call; the
// markup ends with the JSON, and text after it is prose.
type bracketCall struct {
	from, cur int
	st        bracketState
	nameStart int
	fname     string
	idStart   int
	id        string
	p         *parser
	watch     nameWatch
}

func newBracket(j int) *bracketCall {
	return &bracketCall{from: j, cur: j + len(bracketMarker)}
}

func (b *bracketCall) start() int   { return b.from }
func (b *bracketCall) inCall() bool { return true }
func (b *bracketCall) name() string {
	if b.fname != "" {
		return b.fname
	}
	return b.watch.name
}

func (b *bracketCall) advance(s *scanner) (outcome, int) {
	for {
		end, st := b.step(s)
		switch {
		case st == sDone:
			return consumed, end
		case st == sWait && !s.eof:
			return needMore, 0
		case st == sWait && (b.st == bsArgs || b.st == bsPayload) && b.retry():
			continue
		case st == sWait:
			return b.cutOff(s)
		}
	}
}

func (b *bracketCall) step(s *scanner) (int, int) {
	buf := s.buf
	switch b.st {
	case bsAfter:
		// The cursor stays on the marker's end until the next byte decides,
		// so that a later delta sees the same spaces again.
		at := b.cur
		k := skipSpace(buf, at)
		switch {
		case k-at > lookCap:
			return at, sDone
		case k == len(buf):
			return 0, sWait
		}
		b.cur = k
		switch c := buf[k]; {
		case isNameByte(c) && bytes.IndexByte(buf[at:k], '\n') >= 0:
			// A name follows the marker on its line; a word on the next
			// line is prose.
			return at, sDone
		case c == '{' || c == '[':
			b.p = newParser(b.cur, true)
			b.watch = nameWatch{depth: 1}
			if c == '[' {
				b.watch.depth = 2
			}
			b.p.hook = b.watch.hook
			b.st = bsPayload
		case isNameByte(c):
			b.nameStart = b.cur
			b.st = bsName
		default:
			return b.cur, sDone // a marker with no call after it
		}
	case bsName:
		for b.cur < len(buf) && isNameByte(buf[b.cur]) && b.cur-b.nameStart < maxNameLen {
			b.cur++
		}
		if b.cur == len(buf) {
			return 0, sWait
		}
		b.fname = string(buf[b.nameStart:b.cur])
		b.st = bsAfterName
	case bsAfterName:
		return b.afterName(s)
	case bsCallID:
		for b.cur < len(buf) && isNameByte(buf[b.cur]) && b.cur-b.idStart < maxNameLen {
			b.cur++
		}
		if b.cur == len(buf) {
			return 0, sWait
		}
		b.id = string(buf[b.idStart:b.cur])
		b.st = bsAfterName
	case bsArgs, bsPayload:
		b.p.feed(buf)
		b.cur = b.p.pos
		switch {
		case b.p.done():
			return b.cur, b.conclude(s, false)
		case b.p.failed() && b.retry():
			return 0, sCont
		case b.p.failed():
			c := Call{Format: FormatBracket}
			c.Name, c.ID = b.fname, b.id
			if b.st == bsPayload {
				c.Name = shapeOf(b.p.root).name
			}
			c.Problem = "the tool call is not valid JSON (" + b.p.failMsg() + ")"
			s.record([]Call{c}, b.from, b.p.failAt)
			return b.p.failAt, sDone
		}
		return 0, sWait
	}
	return 0, sCont
}

// retry switches to a strict parse when the lenient one guessed a quote
// wrong (see strictRetry).
func (b *bracketCall) retry() bool {
	q := b.p.strictRetry()
	if q == nil {
		return false
	}
	b.p = q
	return true
}

// afterName expects [CALL_ID]id, [ARGS] (either may be absent) and then the
// arguments object.
func (b *bracketCall) afterName(s *scanner) (int, int) {
	buf := s.buf
	b.cur = skipSpace(buf, b.cur)
	if b.cur == len(buf) {
		return 0, sWait
	}
	if buf[b.cur] == '{' {
		b.p = newParser(b.cur, true)
		b.st = bsArgs
		return 0, sCont
	}
	for _, lit := range [...]string{bracketArgs, bracketCallID} {
		full, partial := matchLit(buf, b.cur, lit)
		if partial && !s.eof {
			return 0, sWait
		}
		if full {
			b.cur += len(lit)
			if lit == bracketCallID {
				b.idStart = b.cur
				b.st = bsCallID
			}
			return 0, sCont
		}
	}
	c := Call{Format: FormatBracket,
		Problem: "expected the arguments as a JSON object after the tool name" + hintBracketArgs}
	c.Name, c.ID = b.fname, b.id
	s.record([]Call{c}, b.from, b.cur)
	return b.cur, sDone
}

// conclude records the parsed call(s).
func (b *bracketCall) conclude(s *scanner, repaired bool) int {
	var calls []Call
	if b.st == bsPayload {
		calls = callsFrom(b.p.root, FormatBracket, repaired)
	} else {
		c := Call{Format: FormatBracket, Repaired: repaired}
		c.Name, c.ID = strings.TrimSpace(b.fname), b.id
		c.Arguments = b.p.root.encode()
		calls = []Call{c}
	}
	if repaired {
		calls = markCut(calls, b.p)
	}
	s.record(calls, b.from, b.cur)
	return sDone
}

// cutOff concludes a call the end of input cut off.
func (b *bracketCall) cutOff(s *scanner) (outcome, int) {
	end := len(s.buf)
	switch b.st {
	case bsAfter:
		// Only the marker: nothing to call.
	case bsArgs, bsPayload:
		b.p.finish()
		b.cur = end
		b.conclude(s, true)
	default:
		if b.st == bsName {
			b.fname = string(s.buf[b.nameStart:])
		}
		// Cut off before the arguments began: nothing says what they were.
		c := Call{Format: FormatBracket, Repaired: true, Incomplete: true}
		c.Name, c.ID, c.Arguments = b.fname, b.id, emptyArgs
		s.record([]Call{c}, b.from, end)
	}
	return consumed, end
}

// isNameByte reports whether c may appear in a tool name or call id written
// after [TOOL_CALLS]. MCP tools add '.', '-', ':' or '/' to the usual
// identifier characters.
func isNameByte(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_' || c == '-' || c == '.' || c == ':' || c == '/'
}

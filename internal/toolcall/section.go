package toolcall

import (
	"bytes"
	"strings"
)

// sectionDialect describes tool calls written between special tokens, as
// DeepSeek and Kimi K2 are trained to: a section holding calls, each call a
// header (the tool name, perhaps an id), a separator and JSON arguments.
// When the runtime does not parse them natively (Ollama with a template that
// lacks tool support), the tokens arrive as text.
type sectionDialect struct {
	format    Format
	begin     string // opens the section
	end       string // closes it
	callBegin string
	sep       string // between the header and the arguments
	callEnd   string
	// header reads a call's header into its name and id.
	header func(h string) (name, id string)
}

// The section dialects. DeepSeek's tokens use U+FF5C (fullwidth vertical
// line) and U+2581 (lower one eighth block); some conversions write ASCII
// pipes instead, so both spellings are listed.
var sectionDialects = []*sectionDialect{
	deepseekDialect("｜"),
	deepseekDialect("|"),
	{
		format:    FormatKimi,
		begin:     "<|tool_calls_section_begin|>",
		end:       "<|tool_calls_section_end|>",
		callBegin: "<|tool_call_begin|>",
		sep:       "<|tool_call_argument_begin|>",
		callEnd:   "<|tool_call_end|>",
		header:    kimiHeader,
	},
}

func deepseekDialect(bar string) *sectionDialect {
	tok := func(s string) string { return "<" + bar + s + bar + ">" }
	return &sectionDialect{
		format:    FormatDeepSeek,
		begin:     tok("tool▁calls▁begin"),
		end:       tok("tool▁calls▁end"),
		callBegin: tok("tool▁call▁begin"),
		sep:       tok("tool▁sep"),
		callEnd:   tok("tool▁call▁end"),
		header:    deepseekHeader,
	}
}

// deepseekHeader reads the text before <｜tool▁sep｜>: the tool name
// (DeepSeek V3.1 and later) or the call type "function" (V3 and R1, whose
// name follows the separator on its own line).
func deepseekHeader(h string) (name, id string) {
	if h = strings.TrimSpace(h); h == "function" {
		return "", ""
	}
	return h, ""
}

// kimiHeader reads Kimi K2's "functions.NAME:INDEX", which is also the
// call's id.
func kimiHeader(h string) (name, id string) {
	h = strings.TrimSpace(h)
	name = strings.TrimPrefix(h, "functions.")
	if i := strings.LastIndexByte(name, ':'); i > 0 && allDigits(name[i+1:]) {
		name = name[:i]
	}
	return name, h
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

type secState uint8

const (
	secBetween secState = iota // in the section, between calls
	secHeader                  // reading a call's header up to the separator
	secArgs                    // after the separator, before the JSON
	secName                    // reading a name written after the separator
	secJSON                    // inside the arguments
	secAfter                   // after the arguments, before the call's end token
	secSkip                    // skipping unreadable arguments to the call's end
)

// sectionCall parses one section (or a call token without its section).
type sectionCall struct {
	d         *sectionDialect
	from, cur int
	st        secState
	hdrStart  int
	fname, id string
	fenced    bool
	p         *parser
	calls     []Call
}

func newSection(d *sectionDialect, j int, open string) *sectionCall {
	x := &sectionCall{d: d, from: j, cur: j + len(open)}
	if open == d.callBegin {
		x.st, x.hdrStart = secHeader, x.cur
	}
	return x
}

func (x *sectionCall) start() int   { return x.from }
func (x *sectionCall) inCall() bool { return true }
func (x *sectionCall) name() string { return x.fname }

func (x *sectionCall) advance(s *scanner) (outcome, int) {
	for {
		end, st := x.step(s)
		switch {
		case st == sDone:
			s.record(x.calls, x.from, end)
			return consumed, end
		case st == sWait && !s.eof:
			return needMore, 0
		case st == sWait && x.st == secJSON && x.retry():
			continue
		case st == sWait:
			x.cutOff(s)
			s.record(x.calls, x.from, len(s.buf))
			return consumed, len(s.buf)
		}
	}
}

func (x *sectionCall) step(s *scanner) (int, int) {
	buf := s.buf
	switch x.st {
	case secBetween:
		return x.between(s)
	case secHeader:
		k, ok := findLit(s, x.cur, x.d.sep)
		// A header longer than a name can be is no header, whether its
		// separator has arrived yet or not (streamed or whole, one answer).
		if k-x.hdrStart > maxNameLen {
			x.addProblem("expected " + x.d.sep + " after the tool name")
			x.st = secSkip
			return 0, sCont
		}
		if !ok {
			x.cur = k
			return 0, sWait
		}
		x.fname, x.id = x.d.header(string(buf[x.hdrStart:k]))
		x.cur = k + len(x.d.sep)
		x.st = secArgs
	case secArgs:
		return x.args(s)
	case secName:
		for x.cur < len(buf) && isNameByte(buf[x.cur]) && x.cur-x.hdrStart < maxNameLen {
			x.cur++
		}
		if x.cur == len(buf) {
			return 0, sWait
		}
		x.fname = string(buf[x.hdrStart:x.cur])
		x.st = secArgs
	case secJSON:
		x.p.feed(buf)
		x.cur = x.p.pos
		switch {
		case x.p.done():
			x.addCall(x.p.root.encode(), false)
			x.st = secAfter
		case x.p.failed() && x.retry():
		case x.p.failed():
			x.addProblem("the arguments are not valid JSON (" + x.p.failMsg() + ")")
			x.st = secSkip
		default:
			return 0, sWait
		}
	case secAfter:
		return x.after(s)
	case secSkip:
		k, ok := findLit(s, x.cur, x.d.callEnd)
		if !ok {
			x.cur = k
			return 0, sWait
		}
		x.cur = k + len(x.d.callEnd)
		x.st = secBetween
	}
	return 0, sCont
}

// between expects the next call, the section's end, or prose (the section
// ended without its end token).
func (x *sectionCall) between(s *scanner) (int, int) {
	buf := s.buf
	x.cur = skipSpace(buf, x.cur)
	if x.cur == len(buf) {
		return 0, sWait
	}
	for _, lit := range [...]string{x.d.callBegin, x.d.end} {
		full, partial := matchLit(buf, x.cur, lit)
		if partial && !s.eof {
			return 0, sWait
		}
		if full && lit == x.d.end {
			return x.cur + len(lit), sDone
		}
		if full {
			x.cur += len(lit)
			x.hdrStart, x.fname, x.id, x.fenced = x.cur, "", "", false
			x.st = secHeader
			return 0, sCont
		}
	}
	return x.cur, sDone
}

// args reads what follows the separator: the JSON arguments, perhaps in a
// ```json fence, perhaps after the name (DeepSeek V3's layout).
func (x *sectionCall) args(s *scanner) (int, int) {
	buf := s.buf
	x.cur = skipSpace(buf, x.cur)
	if x.cur == len(buf) {
		return 0, sWait
	}
	switch c := buf[x.cur]; {
	case c == '{':
		x.p = newParser(x.cur, true)
		x.st = secJSON
	case c == '`' && !x.fenced:
		nl := bytes.IndexByte(buf[x.cur:], '\n')
		if nl < 0 {
			return 0, sWait
		}
		x.cur += nl + 1
		x.fenced = true
	case x.fname == "" && isNameByte(c):
		x.hdrStart = x.cur
		x.st = secName
	default:
		full, partial := matchLit(buf, x.cur, x.d.callEnd)
		if partial && !s.eof {
			return 0, sWait
		}
		if full { // a call without arguments
			x.addCall(emptyArgs, false)
			x.st = secAfter
			return 0, sCont
		}
		x.addProblem("expected the arguments as a JSON object after " + x.d.sep)
		x.st = secSkip
	}
	return 0, sCont
}

// after skips the fence closing the arguments and expects the call's end
// token; a missing one is forgiven when the next call or the section's end
// follows.
func (x *sectionCall) after(s *scanner) (int, int) {
	buf := s.buf
	for x.cur < len(buf) && (isSpace(buf[x.cur]) || (x.fenced && buf[x.cur] == '`')) {
		x.cur++
	}
	if x.cur == len(buf) {
		return 0, sWait
	}
	full, partial := matchLit(buf, x.cur, x.d.callEnd)
	if partial && !s.eof {
		return 0, sWait
	}
	if full {
		x.cur += len(x.d.callEnd)
	}
	x.st = secBetween
	return 0, sCont
}

func (x *sectionCall) retry() bool {
	q := x.p.strictRetry()
	if q == nil {
		return false
	}
	x.p = q
	return true
}

func (x *sectionCall) addCall(args []byte, repaired bool) {
	c := Call{Format: x.d.format, Repaired: repaired}
	c.Name, c.ID, c.Arguments = x.fname, x.id, args
	if c.Name == "" {
		c.Problem = "the tool call has no tool name"
	}
	x.calls = append(x.calls, c)
}

func (x *sectionCall) addProblem(why string) {
	c := Call{Format: x.d.format, Problem: why}
	c.Name, c.ID = x.fname, x.id
	x.calls = append(x.calls, c)
}

// cutOff concludes a section the end of input cut off.
func (x *sectionCall) cutOff(s *scanner) {
	switch x.st {
	case secHeader, secArgs, secName:
		if x.st == secHeader {
			x.fname, x.id = x.d.header(string(s.buf[x.hdrStart:]))
		} else if x.st == secName {
			x.fname = string(s.buf[x.hdrStart:])
		}
		x.addCall(emptyArgs, true)
		x.calls[len(x.calls)-1].Incomplete = true
	case secJSON:
		if x.p.finish() {
			x.addCall(x.p.root.encode(), true)
			x.calls[len(x.calls)-1].Incomplete = x.p.cut
		} else {
			x.addProblem("the arguments are not valid JSON (" + x.p.failMsg() + ")")
		}
	}
}

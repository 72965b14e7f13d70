package toolcall

import (
	"bytes"
	"strings"
)

// pyFenceCall is a ```python (or ```py) fence from a model whose dialect is
// Gemma's tool_code (Options.Prefer): such models drift to the ordinary
// Python fence. It is markup only when it holds nothing but calls of known
// tools, written as tool_code calls are; anything else — Python the model
// shows — is prose. Its text is released as soon as the first call names no
// known tool, so shown code streams with little delay.
type pyFenceCall struct {
	from, body, cur int
	fname           string
}

func newPyFence(j, body int) *pyFenceCall {
	return &pyFenceCall{from: j, body: body, cur: body}
}

func (t *pyFenceCall) start() int   { return t.from }
func (t *pyFenceCall) inCall() bool { return t.fname != "" }
func (t *pyFenceCall) name() string { return t.fname }

func (t *pyFenceCall) advance(s *scanner) (outcome, int) {
	buf := s.buf
	if t.fname == "" {
		t.fname = pyFenceName(buf[t.body:])
		if t.fname != "" && !s.known[t.fname] {
			return released, t.body
		}
		// A first line without a call's opening: code, not a call.
		if t.fname == "" && bytes.IndexByte(buf[t.body:], '\n') >= 0 && strings.TrimSpace(firstLine(buf[t.body:])) != "" {
			return released, t.body
		}
	}
	for {
		k, ok := findLit(s, t.cur, fenceTicks)
		if !ok {
			t.cur = k
			if !s.eof {
				return needMore, 0
			}
			return t.conclude(s, pyCalls(buf[t.body:], true), len(buf))
		}
		if !s.lineStart(k) {
			t.cur = k + len(fenceTicks)
			continue
		}
		end := k
		for end < len(buf) && buf[end] == '`' {
			end++
		}
		if end == len(buf) && !s.eof {
			t.cur = k // more backticks may follow
			return needMore, 0
		}
		return t.conclude(s, pyCalls(buf[t.body:k], false), end)
	}
}

// conclude records the calls when every one is a readable call of a known
// tool; otherwise the fence is prose.
func (t *pyFenceCall) conclude(s *scanner, calls []Call, end int) (outcome, int) {
	for _, c := range calls {
		// A call cut off by the end of the text counts (Incomplete: the
		// model is asked to send it again); any other problem is code.
		if (c.Problem != "" && !c.Incomplete) || !s.known[c.Name] {
			return released, end
		}
	}
	if len(calls) == 0 {
		return released, end
	}
	s.record(calls, t.from, end)
	return consumed, end
}

// isPythonInfo reports whether a fence's info string says Python.
func isPythonInfo(line []byte) bool {
	switch strings.ToLower(string(bytes.TrimSpace(line))) {
	case "python", "py", "python3":
		return true
	}
	return false
}

func firstLine(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return string(b[:i])
	}
	return string(b)
}

// pyFenceName returns the tool the first call in src names, once its '('
// has been written, looking through a print(…) around it; "" until then
// or when src does not start with a call.
func pyFenceName(src []byte) string {
	p := pyParser{src: src}
	p.space()
	name, ok := p.callee()
	if !ok || p.i >= len(src) || src[p.i] != '(' {
		return ""
	}
	if name != "print" {
		return name
	}
	p.i++
	p.inlineSpace()
	name, ok = p.callee()
	if !ok || p.i >= len(src) || src[p.i] != '(' {
		return ""
	}
	return name
}

package toolcall

import (
	"bytes"
	"strconv"
	"strings"
)

// toolCodeCall is a ```tool_code fence, in which Gemma-family models write
// their calls as Python:
//
//	```tool_code
//	read_file(path="a.go")
//	print(default_api.list_files(path="."))
//	```
//
// Only calls with keyword arguments whose values are Python literals are
// read; anything else gets a Problem the model can act on.
type toolCodeCall struct {
	from, body, cur int
	fname           string
}

func newToolCode(j, body int) *toolCodeCall {
	return &toolCodeCall{from: j, body: body, cur: body}
}

func (t *toolCodeCall) start() int   { return t.from }
func (t *toolCodeCall) inCall() bool { return true }
func (t *toolCodeCall) name() string { return t.fname }

func (t *toolCodeCall) advance(s *scanner) (outcome, int) {
	buf := s.buf
	if t.fname == "" {
		t.fname = pyCallName(buf[t.body:])
	}
	for {
		k, ok := findLit(s, t.cur, fenceTicks)
		if !ok {
			t.cur = k
			if !s.eof {
				return needMore, 0
			}
			calls := pyCalls(buf[t.body:], true)
			s.record(calls, t.from, len(buf))
			return consumed, len(buf)
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
		s.record(pyCalls(buf[t.body:k], false), t.from, end)
		return consumed, end
	}
}

// isToolCodeInfo reports whether a fence's info string marks Python tool
// calls.
func isToolCodeInfo(line []byte) bool {
	return strings.EqualFold(string(bytes.TrimSpace(line)), "tool_code")
}

// pyCallName returns the tool name at the start of src, once its '(' has
// been written, for progress display.
func pyCallName(src []byte) string {
	p := pyParser{src: src}
	p.space()
	name, ok := p.callee()
	if !ok || p.i >= len(src) || src[p.i] != '(' {
		return ""
	}
	return name[:min(len(name), maxNameLen)]
}

// pyCalls reads every call in src. cutOff says the text ended inside the
// fence: the last call is then repaired, and incomplete when the text ended
// inside it.
func pyCalls(src []byte, cutOff bool) []Call {
	p := pyParser{src: src}
	var calls []Call
	for {
		p.space()
		if p.i >= len(src) {
			break
		}
		c := Call{Format: FormatToolCode}
		name, args, err := p.call()
		c.Name = name[:min(len(name), maxNameLen)] // identifiers are ASCII
		if err != "" {
			c.Problem = "the tool_code block could not be read as a call: " + err + hintToolCode
			c.Repaired, c.Incomplete = cutOff && p.eof, cutOff && p.eof
			calls = append(calls, c)
			break
		}
		c.Arguments = args.encode()
		calls = append(calls, c)
	}
	if cutOff && len(calls) > 0 {
		calls[len(calls)-1].Repaired = true
	}
	return calls
}

// pyParser reads the small part of Python that tool calls use: a call
// (perhaps wrapped in print(…), perhaps with a module prefix) with keyword
// arguments whose values are literals: strings, numbers, True/False/None,
// lists, tuples and dicts.
type pyParser struct {
	src   []byte
	i     int
	depth int
	eof   bool // an error was reaching the end of the text
}

// space skips spaces, newlines, semicolons and comments.
func (p *pyParser) space() {
	for p.i < len(p.src) {
		switch c := p.src[p.i]; {
		case isSpace(c) || c == ';':
			p.i++
		case c == '#':
			for p.i < len(p.src) && p.src[p.i] != '\n' {
				p.i++
			}
		default:
			return
		}
	}
}

// inlineSpace skips spaces and newlines (inside brackets Python allows both).
func (p *pyParser) inlineSpace() {
	for p.i < len(p.src) && isSpace(p.src[p.i]) {
		p.i++
	}
}

func (p *pyParser) fail(why string) string {
	if p.i >= len(p.src) {
		p.eof = true
		return "the text ended inside it"
	}
	return why
}

// ident reads an identifier.
func (p *pyParser) ident() (string, bool) {
	s := p.i
	for p.i < len(p.src) && (isLetter(p.src[p.i]) || p.src[p.i] == '_' || (p.i > s && isDigit(p.src[p.i]))) {
		p.i++
	}
	return string(p.src[s:p.i]), p.i > s
}

// callee reads a dotted name and returns its last part (default_api.x → x).
func (p *pyParser) callee() (string, bool) {
	name, ok := p.ident()
	for ok && p.i < len(p.src) && p.src[p.i] == '.' {
		p.i++
		name, ok = p.ident()
	}
	return name, ok
}

// call reads name(kw=value, …), or print(that).
func (p *pyParser) call() (string, *value, string) {
	name, ok := p.callee()
	if !ok {
		return "", nil, p.fail("expected a tool name")
	}
	p.inlineSpace()
	if p.i >= len(p.src) || p.src[p.i] != '(' {
		return name, nil, p.fail("expected '(' after " + clip(name, maxQuoted))
	}
	p.i++
	if name == "print" {
		p.inlineSpace()
		inner, args, err := p.call()
		if err != "" {
			return inner, nil, err
		}
		p.inlineSpace()
		if p.i >= len(p.src) || p.src[p.i] != ')' {
			return inner, nil, p.fail("expected ')' closing print(")
		}
		p.i++
		return inner, args, ""
	}
	args := &value{kind: kindObject}
	for {
		p.inlineSpace()
		if p.i >= len(p.src) {
			return name, nil, p.fail("")
		}
		if p.src[p.i] == ')' {
			p.i++
			return name, args, ""
		}
		key, ok := p.ident()
		p.inlineSpace()
		if !ok || p.i >= len(p.src) || p.src[p.i] != '=' {
			return name, nil, p.fail("arguments must be given by name (path=\"a.go\")")
		}
		p.i++
		p.inlineSpace()
		v, err := p.value()
		if err != "" {
			return name, nil, err
		}
		args.keys = append(args.keys, key)
		args.elems = append(args.elems, v)
		p.inlineSpace()
		if p.i < len(p.src) && p.src[p.i] == ',' {
			p.i++
		}
	}
}

// value reads a literal.
func (p *pyParser) value() (*value, string) {
	if p.i >= len(p.src) {
		return nil, p.fail("")
	}
	if p.depth >= maxDepth {
		return nil, "nesting too deep"
	}
	switch c := p.src[p.i]; {
	case c == '"' || c == '\'':
		return p.str(false)
	case (c == 'r' || c == 'R') && p.i+1 < len(p.src) && (p.src[p.i+1] == '"' || p.src[p.i+1] == '\''):
		p.i++
		return p.str(true)
	case c == '[' || c == '(':
		return p.seq(c)
	case c == '{':
		return p.dict()
	case c == '-' || c == '+' || c == '.' || isDigit(c):
		s := p.i
		p.i++
		for p.i < len(p.src) && (isDigit(p.src[p.i]) || strings.IndexByte(".eE+-_xXabcdefABCDEF", p.src[p.i]) >= 0) {
			p.i++
		}
		t := strings.ReplaceAll(string(p.src[s:p.i]), "_", "")
		if n, err := strconv.ParseInt(t, 0, 64); err == nil {
			return &value{kind: kindNumber, str: strconv.FormatInt(n, 10)}, ""
		}
		if f, err := strconv.ParseFloat(t, 64); err == nil {
			return &value{kind: kindNumber, str: strconv.FormatFloat(f, 'g', -1, 64)}, ""
		}
		return nil, p.fail("bad number " + strconv.Quote(clip(t, maxQuoted)))
	}
	word, _ := p.ident()
	switch word {
	case "True", "true":
		return &value{kind: kindLiteral, str: "true"}, ""
	case "False", "false":
		return &value{kind: kindLiteral, str: "false"}, ""
	case "None", "null":
		return &value{kind: kindLiteral, str: "null"}, ""
	}
	return nil, p.fail("values must be literals (strings, numbers, True/False/None, lists, dicts)")
}

// str reads a quoted string, single or triple quoted.
func (p *pyParser) str(raw bool) (*value, string) {
	q := p.src[p.i]
	triple := bytes.HasPrefix(p.src[p.i:], []byte{q, q, q})
	n := 1
	if triple {
		n = 3
	}
	p.i += n
	var b strings.Builder
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == q && (!triple || bytes.HasPrefix(p.src[p.i:], []byte{q, q, q})):
			p.i += n
			return &value{kind: kindString, str: b.String()}, ""
		case c == '\n' && !triple:
			return nil, "a string runs past the end of its line"
		case c == '\\' && !raw && p.i+1 < len(p.src):
			p.i++
			b.WriteString(pyEscape(p.src[p.i]))
			p.i++
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return nil, p.fail("")
}

func pyEscape(c byte) string {
	switch c {
	case 'n':
		return "\n"
	case 't':
		return "\t"
	case 'r':
		return "\r"
	case '0':
		return "\x00"
	case '\\', '\'', '"':
		return string(c)
	case '\n':
		return ""
	}
	return "\\" + string(c)
}

// seq reads a list or tuple.
func (p *pyParser) seq(open byte) (*value, string) {
	closer := byte(']')
	if open == '(' {
		closer = ')'
	}
	p.i++
	p.depth++
	defer func() { p.depth-- }()
	v := &value{kind: kindArray}
	for {
		p.inlineSpace()
		if p.i >= len(p.src) {
			return nil, p.fail("")
		}
		if p.src[p.i] == closer {
			p.i++
			return v, ""
		}
		e, err := p.value()
		if err != "" {
			return nil, err
		}
		v.elems = append(v.elems, e)
		p.inlineSpace()
		if p.i < len(p.src) && p.src[p.i] == ',' {
			p.i++
		} else if p.i < len(p.src) && p.src[p.i] != closer {
			return nil, p.fail("expected ',' or '" + string(closer) + "'")
		}
	}
}

// dict reads a dict with string keys.
func (p *pyParser) dict() (*value, string) {
	p.i++
	p.depth++
	defer func() { p.depth-- }()
	v := &value{kind: kindObject}
	for {
		p.inlineSpace()
		if p.i >= len(p.src) {
			return nil, p.fail("")
		}
		if p.src[p.i] == '}' {
			p.i++
			return v, ""
		}
		k, err := p.value()
		if err != "" {
			return nil, err
		}
		if k.kind != kindString {
			return nil, "dict keys must be strings"
		}
		p.inlineSpace()
		if p.i >= len(p.src) || p.src[p.i] != ':' {
			return nil, p.fail("expected ':' in a dict")
		}
		p.i++
		p.inlineSpace()
		e, err := p.value()
		if err != "" {
			return nil, err
		}
		v.keys = append(v.keys, k.str)
		v.elems = append(v.elems, e)
		p.inlineSpace()
		if p.i < len(p.src) && p.src[p.i] == ',' {
			p.i++
		} else if p.i < len(p.src) && p.src[p.i] != '}' {
			return nil, p.fail("expected ',' or '}'")
		}
	}
}

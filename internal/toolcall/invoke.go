package toolcall

import (
	"bytes"
	"encoding/json"
	"strings"
)

// The <function_calls> dialect, which several model families learned from
// published agent transcripts:
//
//	<function_calls>
//	<invoke name="read_file">
//	<parameter name="path">a.go</parameter>
//	</invoke>
//	</function_calls>
const (
	tagFunctionCalls    = "<function_calls>"
	tagFunctionCallsEnd = "</function_calls>"
	tagInvoke           = "<invoke"
	tagInvokeEnd        = "</invoke>"
	tagParamAttr        = "<parameter"
)

type ivState uint8

const (
	ivBetween  ivState = iota // inside <function_calls>, between invokes
	ivTag                     // reading <invoke …> up to '>'
	ivBody                    // between parameters
	ivParamTag                // reading <parameter …> up to '>'
	ivValue                   // reading a parameter's value
)

// invokeCall parses a <function_calls> block, or one <invoke> without it.
type invokeCall struct {
	from, cur int
	wrapped   bool // opened with <function_calls>
	st        ivState
	tagStart  int
	fname     string
	pname     string
	params    *value
	calls     []Call
	problem   string
}

func newInvoke(j int, wrapped bool) *invokeCall {
	x := &invokeCall{from: j, cur: j, wrapped: wrapped}
	if wrapped {
		x.cur += len(tagFunctionCalls)
	} else {
		x.st, x.tagStart = ivTag, j
	}
	return x
}

func (x *invokeCall) start() int   { return x.from }
func (x *invokeCall) inCall() bool { return true }
func (x *invokeCall) name() string { return x.fname }

func (x *invokeCall) advance(s *scanner) (outcome, int) {
	for {
		end, st := x.step(s)
		switch {
		case st == sDone:
			s.record(x.calls, x.from, end)
			return consumed, end
		case st == sWait && !s.eof:
			return needMore, 0
		case st == sWait:
			x.cutOff(s)
			s.record(x.calls, x.from, len(s.buf))
			return consumed, len(s.buf)
		}
	}
}

func (x *invokeCall) step(s *scanner) (int, int) {
	buf := s.buf
	switch x.st {
	case ivBetween:
		x.cur = skipSpace(buf, x.cur)
		if x.cur == len(buf) {
			return 0, sWait
		}
		for _, lit := range [...]string{tagInvoke, tagFunctionCallsEnd} {
			full, partial := matchLit(buf, x.cur, lit)
			if partial && !s.eof {
				return 0, sWait
			}
			if full && lit == tagFunctionCallsEnd {
				return x.cur + len(lit), sDone
			}
			if full {
				x.st, x.tagStart = ivTag, x.cur
				return 0, sCont
			}
		}
		return x.cur, sDone
	case ivTag, ivParamTag:
		return x.tag(s)
	case ivBody:
		return x.body(s)
	case ivValue:
		return x.value(s)
	}
	return 0, sCont
}

// tag reads an <invoke …> or <parameter …> tag and its name attribute.
func (x *invokeCall) tag(s *scanner) (int, int) {
	buf := s.buf
	k := bytes.IndexByte(buf[x.cur:], '>')
	if k < 0 {
		if len(buf)-x.tagStart > maxNameLen+32 {
			return x.malformed()
		}
		x.cur = len(buf)
		return 0, sWait
	}
	end := x.cur + k
	name, ok := nameAttr(buf[x.tagStart:end])
	if !ok {
		return x.malformed()
	}
	x.cur = end + 1
	if x.st == ivTag {
		x.fname, x.params, x.problem = name, &value{kind: kindObject}, ""
		x.st = ivBody
	} else {
		x.pname, x.tagStart = name, x.cur
		x.st = ivValue
	}
	return 0, sCont
}

// malformed ends the markup before a tag that cannot be read.
func (x *invokeCall) malformed() (int, int) {
	c := Call{Format: FormatInvoke, Problem: "malformed <invoke name=\"…\"> or <parameter name=\"…\"> tag"}
	c.Name = x.fname
	x.calls = append(x.calls, c)
	return x.tagStart, sDone // the tag itself is prose
}

func (x *invokeCall) body(s *scanner) (int, int) {
	buf := s.buf
	x.cur = skipSpace(buf, x.cur)
	if x.cur == len(buf) {
		return 0, sWait
	}
	for _, lit := range [...]string{tagParamAttr, tagInvokeEnd} {
		full, partial := matchLit(buf, x.cur, lit)
		if partial && !s.eof {
			return 0, sWait
		}
		if full && lit == tagInvokeEnd {
			x.cur += len(lit)
			x.finishCall(false)
			if !x.wrapped {
				return x.cur, sDone
			}
			x.st = ivBetween
			return 0, sCont
		}
		if full {
			x.st, x.tagStart = ivParamTag, x.cur
			return 0, sCont
		}
	}
	// Anything else ends the invoke that forgot its closing tag.
	x.finishCall(false)
	return x.cur, sDone
}

// value reads a parameter's value up to </parameter>, or up to the next
// <parameter or </invoke> when the closing tag was forgotten.
func (x *invokeCall) value(s *scanner) (int, int) {
	buf := s.buf
	for {
		k := bytes.IndexByte(buf[x.cur:], '<')
		if k < 0 {
			x.cur = len(buf)
			return 0, sWait
		}
		at := x.cur + k
		for _, lit := range [...]string{tagParameterEnd, tagParamAttr, tagInvokeEnd} {
			full, partial := matchLit(buf, at, lit)
			if partial && !s.eof {
				x.cur = at
				return 0, sWait
			}
			if full {
				addParamValue(x.params, x.pname, s.paramType(x.fname, x.pname), buf[x.tagStart:at])
				x.cur = at
				if lit == tagParameterEnd {
					x.cur += len(lit)
				}
				x.st = ivBody
				return 0, sCont
			}
		}
		x.cur = at + 1
	}
}

func (x *invokeCall) finishCall(repaired bool) {
	c := Call{Format: FormatInvoke, Repaired: repaired, Problem: x.problem}
	c.Name, c.Arguments = strings.TrimSpace(x.fname), x.params.encode()
	if c.Name == "" {
		c.Problem = joinProblem(c.Problem, "the <invoke> tag has no name attribute")
	}
	x.calls = append(x.calls, c)
}

func (x *invokeCall) cutOff(s *scanner) {
	switch x.st {
	case ivTag, ivParamTag:
		if x.st == ivParamTag {
			x.finishCall(true)
			x.calls[len(x.calls)-1].Incomplete = true
		} else if len(x.calls) == 0 {
			x.calls = append(x.calls, Call{Format: FormatInvoke, Repaired: true, Incomplete: true,
				Problem: "the response ended inside an <invoke> tag"})
		}
	case ivValue:
		addParamValue(x.params, x.pname, s.paramType(x.fname, x.pname), s.buf[x.tagStart:])
		x.finishCall(true)
		x.calls[len(x.calls)-1].Incomplete = true
	case ivBody:
		x.finishCall(true) // only </invoke> is missing
	}
}

// nameAttr reads the name attribute of a tag such as <invoke name="x">,
// quoted with either quote or not at all.
func nameAttr(tag []byte) (string, bool) {
	i := bytes.Index(tag, []byte("name="))
	if i < 0 {
		return "", false
	}
	v := bytes.TrimSpace(tag[i+len("name="):])
	if len(v) > 0 && (v[0] == '"' || v[0] == '\'') {
		q := v[0]
		e := bytes.IndexByte(v[1:], q)
		if e < 0 {
			return "", false
		}
		return string(v[1 : 1+e]), true
	}
	if e := bytes.IndexAny(v, " \t\n/"); e >= 0 {
		v = v[:e]
	}
	return string(v), len(v) > 0
}

// addParamValue stores one parameter written as element text (without the
// newline that opens and the one that closes it). typ is the parameter's
// JSON Schema type when the tool's schema is known (Options.Params), else
// "": the text is then a string, unless it is a JSON object or array,
// which tools taking lists and maps expect as such.
func addParamValue(params *value, key, typ string, raw []byte) {
	raw = bytes.TrimPrefix(raw, []byte("\n"))
	raw = bytes.TrimSuffix(raw, []byte("\n"))
	params.keys = append(params.keys, key)
	params.elems = append(params.elems, elementValue(typ, raw))
}

// elementValue reads element text as a value of the schema type typ: a
// string parameter keeps its text even when it looks like JSON (the
// content of a package.json), a number or boolean parameter gets the
// number or boolean written, an array or object parameter the JSON.
// Text that is not of the type stays a string, for the tool to refuse.
func elementValue(typ string, raw []byte) *value {
	v := &value{kind: kindString, str: string(raw)}
	t := bytes.TrimSpace(raw)
	switch typ {
	case "string":
		return v
	case "integer", "number":
		if len(t) > 0 && (t[0] == '-' || isDigit(t[0])) && json.Valid(t) {
			return &value{kind: kindNumber, str: string(t)}
		}
		return v
	case "boolean":
		switch string(t) {
		case "true", "True":
			return &value{kind: kindLiteral, str: "true"}
		case "false", "False":
			return &value{kind: kindLiteral, str: "false"}
		}
		return v
	}
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		p := newParser(0, false)
		p.feed(t)
		if p.done() && p.pos == len(t) {
			return p.root
		}
	}
	return v
}

package toolcall

import (
	"bytes"
	"strings"
)

const (
	tagFunctionEnd  = "</function>"
	tagParameter    = "<parameter="
	tagParameterEnd = "</parameter>"
	maxNameLen      = 256
)

type fnState uint8

const (
	fnName       fnState = iota // reading NAME of <function=NAME>
	fnBody                      // between parameters
	fnJSON                      // inside a JSON arguments object
	fnAfterJSON                 // after it, before </function>
	fnParamName                 // reading KEY of <parameter=KEY>
	fnParamValue                // reading a parameter's value
	fnSkip                      // skipping unparseable arguments to </function>
	fnEnd
)

// funcParser reads <function=NAME>…</function>: Llama 3.1's custom format
// with a JSON object as the body, and Qwen3-Coder's, with one
// <parameter=KEY>value</parameter> per argument. Parameter values are kept
// as strings: without the tool's schema there is no telling whether "10"
// was meant as a number.
type funcParser struct {
	cur      int
	st       fnState
	fname    string
	p        *parser
	params   *value
	pname    string
	vstart   int
	repaired bool
	cut      bool // cut off inside the name, a value or the JSON arguments
	problem  string
}

// newFuncParser starts after "<function=" at offset cur.
func newFuncParser(cur int) *funcParser {
	return &funcParser{cur: cur, params: &value{kind: kindObject}}
}

// advance reports whether the function markup has ended (at f.cur).
func (f *funcParser) advance(s *scanner) (ended bool) {
	for f.st != fnEnd {
		if !f.step(s) {
			switch {
			case !s.eof:
				return false
			case f.st == fnJSON && f.retry():
			default:
				f.cutOff(s)
			}
		}
	}
	return true
}

// retry switches to a strict parse of the arguments when the lenient one
// guessed a quote wrong (see strictRetry).
func (f *funcParser) retry() bool {
	q := f.p.strictRetry()
	if q == nil {
		return false
	}
	f.p = q
	return true
}

// step makes progress, reporting false when it needs more input.
func (f *funcParser) step(s *scanner) bool {
	buf := s.buf
	switch f.st {
	case fnName, fnParamName:
		return f.readName(buf)
	case fnBody:
		f.cur = skipSpace(buf, f.cur)
		if f.cur == len(buf) {
			return false
		}
		for _, lit := range [...]string{tagParameter, tagFunctionEnd} {
			full, partial := matchLit(buf, f.cur, lit)
			if partial && !s.eof {
				return false
			}
			if full && lit == tagParameter {
				f.cur += len(lit)
				f.vstart = f.cur
				f.st = fnParamName
				return true
			}
			if full {
				f.cur += len(lit)
				f.st = fnEnd
				return true
			}
		}
		if buf[f.cur] == '{' && f.p == nil && len(f.params.keys) == 0 {
			f.p = newParser(f.cur, true)
			f.st = fnJSON
			return true
		}
		if f.p == nil && len(f.params.keys) == 0 {
			f.problem = "expected a JSON object or <parameter=…> tags inside <function=…>"
		}
		f.st = fnEnd
	case fnJSON:
		f.p.feed(buf)
		f.cur = f.p.pos
		switch {
		case f.p.done():
			f.st = fnAfterJSON
		case f.p.failed() && f.retry():
		case f.p.failed():
			f.problem = "the arguments are not valid JSON: " + f.p.failMsg()
			f.st = fnSkip
		default:
			return false
		}
	case fnAfterJSON:
		f.cur = skipSpace(buf, f.cur)
		if f.cur == len(buf) {
			return false
		}
		full, partial := matchLit(buf, f.cur, tagFunctionEnd)
		if partial && !s.eof {
			return false
		}
		if full {
			f.cur += len(tagFunctionEnd)
		}
		f.st = fnEnd
	case fnParamValue:
		return f.readValue(s)
	case fnSkip:
		at, ok := findLit(s, f.cur, tagFunctionEnd)
		if !ok {
			f.cur = at
			return false
		}
		f.cur = at + len(tagFunctionEnd)
		f.st = fnEnd
	}
	return true
}

// readName reads a function or parameter name up to '>'.
func (f *funcParser) readName(buf []byte) bool {
	start := f.vstart
	for i := f.cur; i < len(buf); i++ {
		c := buf[i]
		if c == '>' {
			name := strings.TrimSpace(string(buf[start:i]))
			f.cur = i + 1
			if f.st == fnName {
				f.fname = name
				f.st = fnBody
			} else {
				f.pname = name
				f.vstart = f.cur
				f.st = fnParamValue
			}
			return true
		}
		if c == '\n' || c == '<' || i-start >= maxNameLen {
			f.problem = "malformed <function=…> or <parameter=…> tag"
			f.cur = i
			f.st = fnEnd
			return true
		}
	}
	f.cur = len(buf)
	return false
}

// readValue reads a parameter value up to </parameter>, or up to the next
// <parameter=…> or </function> when the model forgot to close it.
func (f *funcParser) readValue(s *scanner) bool {
	buf := s.buf
	for {
		k := bytes.IndexByte(buf[f.cur:], '<')
		if k < 0 {
			f.cur = len(buf)
			return false
		}
		at := f.cur + k
		for _, lit := range [...]string{tagParameterEnd, tagParameter, tagFunctionEnd} {
			full, partial := matchLit(buf, at, lit)
			if partial && !s.eof {
				f.cur = at
				return false
			}
			if full {
				f.addParam(s, buf[f.vstart:at])
				f.cur = at
				if lit == tagParameterEnd {
					f.cur += len(lit)
				}
				f.st = fnBody
				return true
			}
		}
		f.cur = at + 1
	}
}

// addParam stores one parameter, without the newline that opens and the one
// that closes the value in Qwen3-Coder's layout: as a string, or as the
// type the tool's schema gives it (Options.Params, see elementValue).
func (f *funcParser) addParam(s *scanner, v []byte) {
	v = bytes.TrimPrefix(v, []byte("\n"))
	v = bytes.TrimSuffix(v, []byte("\n"))
	f.params.keys = append(f.params.keys, f.pname)
	val := &value{kind: kindString, str: string(v)}
	if typ := s.paramType(f.fname, f.pname); typ != "" {
		val = elementValue(typ, v)
	}
	f.params.elems = append(f.params.elems, val)
}

// cutOff concludes markup that the end of input cut off.
func (f *funcParser) cutOff(s *scanner) {
	switch f.st {
	case fnName, fnParamName:
		if f.st == fnName {
			f.fname = strings.TrimSpace(string(s.buf[f.vstart:]))
		}
		f.cut = true
	case fnJSON:
		f.p.finish()
		f.cut = f.p.cut
	case fnParamValue:
		f.addParam(s, s.buf[f.vstart:])
		f.cut = true
	case fnSkip, fnAfterJSON, fnBody:
		// The arguments are complete; only </function> is missing, which
		// alone does not make the call doubtful.
		f.cur = len(s.buf)
		f.st = fnEnd
		return
	}
	f.repaired = true
	f.cur = len(s.buf)
	f.st = fnEnd
}

// call returns the parsed call.
func (f *funcParser) call(format Format) Call {
	c := Call{Format: format, Repaired: f.repaired, Incomplete: f.cut}
	c.Name = f.fname
	switch {
	case f.p == nil:
		c.Arguments = f.params.encode()
	case !f.p.failed():
		c.Arguments = f.p.root.encode()
	}
	// Unparseable arguments stay nil; Problem says why.
	c.Problem = f.problem
	if c.Name == "" {
		c.Problem = joinProblem(c.Problem, "the <function=…> tag has no tool name")
	}
	return c
}

// findLit searches for lit from offset from. When it is not there it returns
// the offset from which a later search must start (so that a partial match
// at the end is seen again once more input arrives) and false.
func findLit(s *scanner, from int, lit string) (int, bool) {
	if k := bytes.Index(s.buf[from:], []byte(lit)); k >= 0 {
		return from + k, true
	}
	return max(from, len(s.buf)-len(lit)+1), false
}

// standaloneFunc is <function=…>…</function> outside <tool_call> tags.
type standaloneFunc struct {
	from int
	f    *funcParser
}

func newStandaloneFunc(j int) *standaloneFunc {
	f := newFuncParser(j + len(tagFunction))
	f.vstart = f.cur
	return &standaloneFunc{from: j, f: f}
}

func (m *standaloneFunc) advance(s *scanner) (outcome, int) {
	if !m.f.advance(s) {
		return needMore, 0
	}
	s.record([]Call{m.f.call(FormatFunction)}, m.from, m.f.cur)
	return consumed, m.f.cur
}

func (m *standaloneFunc) start() int   { return m.from }
func (m *standaloneFunc) inCall() bool { return true }
func (m *standaloneFunc) name() string {
	if m.f.st == fnName {
		return ""
	}
	return m.f.fname
}

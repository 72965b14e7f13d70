package toolcall

import "bytes"

// GLM-4.5's layout inside <tool_call> tags: the tool name on the first line,
// then one key/value pair per argument.
//
//	<tool_call>read_file
//	<arg_key>path</arg_key>
//	<arg_value>a.go</arg_value>
//	</tool_call>
//
// GLM-4 (and models trained on its data) write the name and then a JSON
// object instead of the pairs; both are read here.
const (
	tagArgKey      = "<arg_key>"
	tagArgKeyEnd   = "</arg_key>"
	tagArgValue    = "<arg_value>"
	tagArgValueEnd = "</arg_value>"
)

type glmState uint8

const (
	glName     glmState = iota // reading the tool name
	glBody                     // between pairs
	glKey                      // inside <arg_key>
	glAfterKey                 // expecting <arg_value>
	glValue                    // inside <arg_value>
	glJSON                     // inside a JSON arguments object
	glEnd
)

// glmParser reads the GLM layout from the tool name on. It stops before
// </tool_call>, which the enclosing xmlCall reads.
type glmParser struct {
	cur, start int
	st         glmState
	fname      string
	key        string
	params     *value
	p          *parser
	notGLM     bool // the name is not followed by pairs or JSON: not this layout
	cut        bool
	problem    string
}

func newGLM(at int) *glmParser {
	return &glmParser{cur: at, start: at, params: &value{kind: kindObject}}
}

// advance reports whether the layout has ended (at g.cur).
func (g *glmParser) advance(s *scanner) bool {
	for g.st != glEnd {
		if !g.step(s) {
			if !s.eof {
				return false
			}
			g.cutOff(s)
		}
	}
	return true
}

func (g *glmParser) step(s *scanner) bool {
	buf := s.buf
	switch g.st {
	case glName:
		for g.cur < len(buf) && isNameByte(buf[g.cur]) && g.cur-g.start < maxNameLen {
			g.cur++
		}
		if g.cur == len(buf) {
			return false
		}
		next := g.cur
		if s.prefer == FormatGLM {
			// The model writes this layout: spaces after the name are slips.
			for next < len(buf) && (buf[next] == ' ' || buf[next] == '\t') {
				next++
			}
			if next == len(buf) {
				return false
			}
		}
		g.fname = string(buf[g.start:g.cur])
		g.cur = next
		g.st = glBody
		if c := buf[g.cur]; c != '\n' && c != '\r' && c != '<' && c != '{' {
			// GLM ends the name with a newline: "<tool_call> tags" is prose.
			g.notGLM = true
			g.st = glEnd
		}
	case glBody:
		return g.body(s)
	case glKey, glValue:
		end := tagArgKeyEnd
		if g.st == glValue {
			end = tagArgValueEnd
		}
		k, ok := findLit(s, g.cur, end)
		if !ok {
			g.cur = k
			return false
		}
		if g.st == glKey {
			g.key = string(bytes.TrimSpace(buf[g.start:k]))
			g.st = glAfterKey
		} else {
			addParamValue(g.params, g.key, s.paramType(g.fname, g.key), buf[g.start:k])
			g.st = glBody
		}
		g.cur = k + len(end)
	case glAfterKey:
		g.cur = skipSpace(buf, g.cur)
		full, partial := matchLit(buf, g.cur, tagArgValue)
		if partial || g.cur == len(buf) {
			return false
		}
		if !full {
			g.problem = "expected <arg_value> after </arg_key>"
			g.st = glEnd
			return true
		}
		g.cur += len(tagArgValue)
		g.start, g.st = g.cur, glValue
	case glJSON:
		g.p.feed(buf)
		g.cur = g.p.pos
		switch {
		case g.p.done():
			g.params = g.p.root
			g.p = nil
			g.st = glEnd
		case g.p.failed():
			g.problem = "the arguments are not valid JSON (" + g.p.failMsg() + ")"
			g.params = nil
			g.st = glEnd
		default:
			return false
		}
	}
	return true
}

// body expects a pair, the JSON arguments (right after the name), or the
// end of the call.
func (g *glmParser) body(s *scanner) bool {
	buf := s.buf
	g.cur = skipSpace(buf, g.cur)
	if g.cur == len(buf) {
		return false
	}
	if buf[g.cur] == '{' && len(g.params.keys) == 0 {
		g.p = newParser(g.cur, false)
		g.st = glJSON
		return true
	}
	for _, lit := range [...]string{tagArgKey, tagClose} {
		full, partial := matchLit(buf, g.cur, lit)
		if partial && !s.eof {
			return false
		}
		if full && lit == tagArgKey {
			g.cur += len(lit)
			g.start, g.st = g.cur, glKey
			return true
		}
		if full {
			g.st = glEnd
			return true
		}
	}
	if len(g.params.keys) == 0 {
		g.notGLM = true
	}
	g.st = glEnd
	return true
}

func (g *glmParser) cutOff(s *scanner) {
	switch g.st {
	case glName:
		if s.prefer != FormatGLM {
			// A word at the very end cannot be told from prose.
			g.notGLM = true
			break
		}
		// From a model that writes this layout, it is a call cut off.
		end := g.start
		for end < len(s.buf) && isNameByte(s.buf[end]) && end-g.start < maxNameLen {
			end++
		}
		g.fname = string(s.buf[g.start:end])
		g.cut = true
	case glKey, glAfterKey:
		g.cut = true
	case glValue:
		addParamValue(g.params, g.key, s.paramType(g.fname, g.key), s.buf[g.start:])
		g.cut = true
	case glJSON:
		if g.p.finish() {
			g.params = g.p.root
			g.cut = g.p.cut
		} else {
			g.problem = "the arguments are not valid JSON (" + g.p.failMsg() + ")"
			g.params = nil
		}
	}
	g.cur = len(s.buf)
	g.st = glEnd
}

// call returns the parsed call. repaired says the text ended inside it.
func (g *glmParser) call(repaired bool) Call {
	c := Call{Format: FormatGLM, Repaired: repaired || g.cut, Incomplete: g.cut, Problem: g.problem}
	c.Name = g.fname
	if g.params != nil {
		c.Arguments = g.params.encode()
	}
	return c
}

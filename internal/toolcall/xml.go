package toolcall

import (
	"bytes"
	"strings"
)

type xmlState uint8

const (
	xsOpen  xmlState = iota // after <tool_call>: spaces, a repeated tag, a fence
	xsJSON                  // inside the JSON payload
	xsFunc                  // inside <function=…>
	xsAfter                 // after a payload: </tool_call>, another payload, or the end
	xsNext                  // inside a further JSON object after the first payload
	xsSkip                  // skipping an unparseable payload to </tool_call>
	xsGLM                   // inside GLM's name + <arg_key>/<arg_value> layout
)

// xmlCall parses <tool_call>PAYLOAD</tool_call>. PAYLOAD is a call object,
// an array of them, or <function=…>; it may be wrapped in a ```json fence,
// and several may follow one another. A missing closing tag ends the call
// at the first text that is not part of it.
type xmlCall struct {
	from, cur int
	st        xmlState
	p         *parser
	f         *funcParser
	g         *glmParser
	next      int  // offset of the further object being parsed in xsNext
	fenced    bool // the payload sits in a ``` fence inside the tags
	calls     []Call
	watch     nameWatch
}

func newXML(j int) *xmlCall {
	return &xmlCall{from: j, cur: j + len(tagOpen)}
}

func (x *xmlCall) start() int   { return x.from }
func (x *xmlCall) inCall() bool { return true }
func (x *xmlCall) name() string {
	if x.g != nil && x.g.st != glName {
		return x.g.fname
	}
	if x.f != nil && x.f.st != fnName {
		return x.f.fname
	}
	return x.watch.name
}

// Step results of the state handlers.
const (
	sWait = iota // needs more input
	sCont        // moved on; call again
	sDone        // the markup ends at the returned offset
)

func (x *xmlCall) advance(s *scanner) (outcome, int) {
	for {
		var end, st int
		switch x.st {
		case xsOpen:
			end, st = x.open(s)
		case xsJSON:
			st = x.payload(s)
		case xsFunc:
			st = sWait
			if x.f.advance(s) {
				x.calls = append(x.calls, x.f.call(FormatXML))
				x.cur = x.f.cur
				x.st = xsAfter
				st = sCont
			}
		case xsGLM:
			end, st = x.glm(s)
		case xsAfter:
			end, st = x.after(s)
		case xsNext:
			end, st = x.nextObject(s)
		case xsSkip:
			end, st = x.skip(s)
		}
		switch {
		case st == sDone:
			s.record(x.calls, x.from, end)
			return consumed, end
		case st == sWait && !s.eof:
			return needMore, 0
		case st == sWait && x.st == xsJSON && x.retry():
			continue
		case st == sWait:
			return x.cutOff(s)
		}
	}
}

// open skips what may precede the payload and starts parsing it.
func (x *xmlCall) open(s *scanner) (int, int) {
	buf := s.buf
	x.cur = skipSpace(buf, x.cur)
	if x.cur == len(buf) {
		return 0, sWait
	}
	switch buf[x.cur] {
	case '{', '[':
		x.startJSON(buf, x.cur)
		return 0, sCont
	case '`':
		// A fence inside the tags: skip its opening line.
		nl := bytes.IndexByte(buf[x.cur:], '\n')
		if nl < 0 {
			return 0, sWait
		}
		x.cur += nl + 1
		x.fenced = true
		return 0, sCont
	}
	for _, lit := range [...]string{tagOpen, tagFunction, tagClose} {
		full, partial := matchLit(buf, x.cur, lit)
		if partial && !s.eof {
			return 0, sWait
		}
		if !full {
			continue
		}
		switch lit {
		case tagOpen: // a repeated opening tag
			x.cur += len(lit)
			return 0, sCont
		case tagFunction:
			x.startFunc(x.cur)
			return 0, sCont
		default:
			x.calls = append(x.calls, Call{Format: FormatXML, Problem: "the <tool_call> tags are empty"})
			return x.cur + len(lit), sDone
		}
	}
	if c := buf[x.cur]; isLetter(c) || c == '_' {
		x.g = newGLM(x.cur)
		x.st = xsGLM
		return 0, sCont
	}
	return x.notACall()
}

// notACall ends the markup after the tag: what follows is prose.
func (x *xmlCall) notACall() (int, int) {
	x.calls = append(x.calls, Call{Format: FormatXML,
		Problem: problemNoObject})
	return x.cur, sDone
}

// glm continues GLM's layout.
func (x *xmlCall) glm(s *scanner) (int, int) {
	if !x.g.advance(s) {
		return 0, sWait
	}
	if x.g.notGLM {
		x.cur = x.g.start
		return x.notACall()
	}
	x.calls = append(x.calls, x.g.call(false))
	x.cur = x.g.cur
	x.st = xsAfter
	return 0, sCont
}

func (x *xmlCall) startJSON(buf []byte, at int) {
	x.p = newParser(at, true)
	x.watch = nameWatch{depth: 1}
	if buf[at] == '[' {
		x.watch.depth = 2
	}
	x.p.hook = x.watch.hook
	x.st = xsJSON
}

func (x *xmlCall) startFunc(at int) {
	x.f = newFuncParser(at + len(tagFunction))
	x.f.vstart = x.f.cur
	x.st = xsFunc
}

// payload feeds the first JSON payload.
func (x *xmlCall) payload(s *scanner) int {
	x.p.feed(s.buf)
	x.cur = x.p.pos
	switch {
	case x.p.done():
		x.calls = append(x.calls, callsFrom(x.p.root, FormatXML, false)...)
		x.st = xsAfter
		return sCont
	case x.p.failed() && x.retry():
		return sCont
	case x.p.failed():
		c := Call{Format: FormatXML}
		c.Name = shapeOf(x.p.root).name
		c.Problem = "the tool call is not valid JSON (" + x.p.failMsg() + ")" + hintRewrite
		boundName(&c)
		x.calls = append(x.calls, c)
		x.st = xsSkip
		return sCont
	}
	return sWait
}

// retry switches to a strict parse of the payload when the lenient one
// guessed a quote wrong (see strictRetry).
func (x *xmlCall) retry() bool {
	q := x.p.strictRetry()
	if q == nil {
		return false
	}
	x.p = q
	return true
}

// after looks at what follows a payload.
func (x *xmlCall) after(s *scanner) (int, int) {
	buf := s.buf
	// Skip spaces, and the brackets and fence that models leave after the
	// payload (an extra '}', the ``` closing a fence inside the tags).
	for x.cur < len(buf) {
		c := buf[x.cur]
		if !isSpace(c) && c != '}' && c != ']' && (c != '`' || !x.fenced) {
			break
		}
		x.cur++
	}
	if x.cur == len(buf) {
		return 0, sWait
	}
	for _, lit := range [...]string{tagClose, tagOpen, tagFunction} {
		full, partial := matchLit(buf, x.cur, lit)
		if partial && !s.eof {
			return 0, sWait
		}
		if !full {
			continue
		}
		switch lit {
		case tagClose:
			return x.cur + len(lit), sDone
		case tagOpen: // the next call starts; this one had no closing tag
			return x.cur, sDone
		default:
			x.startFunc(x.cur)
			return 0, sCont
		}
	}
	if buf[x.cur] == '{' {
		// Another call inside the same tags, if it parses as one.
		x.next = x.cur
		x.p = newParser(x.cur, false) // strict: a wrong guess would swallow prose
		x.st = xsNext
		return 0, sCont
	}
	return x.cur, sDone // prose after a call with no closing tag
}

// nextObject feeds a further object after the first payload. One that does
// not parse as a call is prose that followed a call with no closing tag.
func (x *xmlCall) nextObject(s *scanner) (int, int) {
	x.p.feed(s.buf)
	switch {
	case x.p.done() && shapeOf(x.p.root).hasShape:
		x.calls = append(x.calls, callFrom(x.p.root, FormatXML, false))
		x.cur = x.p.pos
		x.st = xsAfter
		return 0, sCont
	case x.p.done(), x.p.failed():
		return x.next, sDone
	}
	return 0, sWait
}

// skip finds the end of an unparseable payload: </tool_call>, or the next
// <tool_call>.
func (x *xmlCall) skip(s *scanner) (int, int) {
	for {
		k := bytes.IndexByte(s.buf[x.cur:], '<')
		if k < 0 {
			x.cur = len(s.buf)
			return 0, sWait
		}
		at := x.cur + k
		for _, lit := range [...]string{tagClose, tagOpen} {
			full, partial := matchLit(s.buf, at, lit)
			if partial && !s.eof {
				x.cur = at
				return 0, sWait
			}
			if full && lit == tagClose {
				return at + len(lit), sDone
			}
			if full {
				return at, sDone
			}
		}
		x.cur = at + 1
	}
}

// cutOff concludes a call the end of input cut off.
func (x *xmlCall) cutOff(s *scanner) (outcome, int) {
	end := len(s.buf)
	switch x.st {
	case xsOpen:
		x.calls = append(x.calls, Call{Format: FormatXML, Repaired: true, Incomplete: true,
			Problem: "the response ended right after <tool_call>, before the call"})
	case xsJSON:
		x.p.finish()
		x.calls = append(x.calls, markCut(callsFrom(x.p.root, FormatXML, true), x.p)...)
	case xsNext:
		if x.p.finish() && shapeOf(x.p.root).hasShape {
			x.calls = append(x.calls, markCut([]Call{callFrom(x.p.root, FormatXML, true)}, x.p)...)
		} else {
			end = x.next
		}
	}
	s.record(x.calls, x.from, end)
	return consumed, end
}

// nameWatch is a parser hook that notes the tool name as soon as it has been
// read, so the UI can say what is being written.
type nameWatch struct {
	depth int // nesting of the call objects: 1, or 2 inside an array
	name  string
}

func (w *nameWatch) hook(depth int, key string, v *value) bool {
	if w.name == "" && depth == w.depth && v.kind == kindString && isNameKey(key) {
		w.name = strings.TrimSpace(v.str)
	}
	return true
}

func isNameKey(k string) bool {
	for _, n := range nameKeys {
		if k == n {
			return true
		}
	}
	return false
}

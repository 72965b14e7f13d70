package toolcall

import (
	"fmt"
	"strconv"
)

// maxDepth bounds JSON nesting. Deeper input is treated as invalid: no tool
// call nests that deep, and the bound keeps encoding recursion shallow.
const maxDepth = 256

// kind is the type of a parsed JSON value.
type kind uint8

const (
	kindObject kind = iota + 1
	kindArray
	kindString
	kindNumber
	kindLiteral // true, false, null (Python's True/False/None normalised)
)

// value is a parsed JSON value. Objects keep their members in source order
// so that arguments are re-encoded in the order the model wrote them.
type value struct {
	kind  kind
	str   string   // string contents, number text, or literal name
	keys  []string // object member names, parallel to elems
	elems []*value // object member values or array elements
}

// get returns the value of the first member called key, or nil.
func (v *value) get(key string) *value {
	if v == nil || v.kind != kindObject {
		return nil
	}
	for i, k := range v.keys {
		if k == key {
			return v.elems[i]
		}
	}
	return nil
}

// pstate is what the parser expects next.
type pstate uint8

const (
	psValue      pstate = iota // a value (or ']' when closeOK)
	psKeyOrEnd                 // a member name or '}'
	psColon                    // ':'
	psCommaOrEnd               // ',' or the closing bracket
	psString                   // inside a string
	psQuote                    // after a quote that may or may not close a string
	psScalar                   // inside a number or literal
	psBareKey                  // inside an unquoted member name (lenientQuotes)
	psComment                  // inside a comment (lenientQuotes; jsoncomment.go)
	psDone                     // the root value is complete
	psFailed                   // the input is not (lenient) JSON
)

// frame is one open container. key is the member name waiting for its value.
type frame struct {
	v   *value
	key string
}

// parser is a resumable, lenient JSON parser for one object or array. It is
// fed bytes as they arrive and keeps its state between feeds, so streaming a
// call costs the same as parsing it once. Besides strict JSON it accepts what
// models commonly write: trailing commas, single-quoted strings, literal
// control characters inside strings, unknown escapes (kept verbatim), and
// Python's True/False/None. With lenientQuotes set, a quote inside a string
// value closes it only when the next non-space byte is ',', '}', ']', ':',
// '"' or the end of input; otherwise it is taken as a literal quote the
// model forgot to escape, and a value may be a triple-quoted string. A
// wrong guess about a quote is undone by strictRetry. With tagged set
// (with lenientQuotes, and kept by the strict retry) a member name may be
// written without quotes ({path: "a"}, as in JavaScript) and comments are
// skipped.
type parser struct {
	st      pstate
	closeOK bool // in psValue: ']' may close the array (after '[' or ',')
	stack   []frame
	root    *value

	lenientQuotes bool
	// tagged: the payload of a tagged call, where unquoted member names
	// and comments are read too; kept by strictRetry.
	tagged bool
	// nl: in psCommaOrEnd, a newline came since the value ended; in a
	// tagged payload a member name may follow without a comma there.
	nl     bool
	strays int // quotes taken as literal under lenientQuotes
	start  int // offset of the first byte

	// string and scalar token state
	tok      []byte
	quote    byte
	isKey    bool
	esc      uint8 // 0 none, 1 after '\', 2 inside \uXXXX
	hexN     int
	hexV     rune
	hexRaw   [4]byte
	hiSur    rune // a high surrogate waiting for its low half
	tokStart int  // offset of the current scalar, for error reports
	quoteWS  []byte
	dq, sq   byteCache // next '"' and next '\''
	tq       byteCache // next typoLead, in strings opened by a typographic quote
	typo     bool      // the current string opened with a typographic quote
	triple   bool      // the current string opened with three quotes (Python's """…""")
	block    bool      // the comment is /* … */, not // to the end of the line
	cmtRet   pstate    // what the parser expects after the comment
	typoQ    [3]byte   // the typographic quote that may have closed it (psQuote)
	wait     bool      // the lexer needs more input before it can go on
	bs       byteCache // next '\\'

	// cut is set by finish when the input ended inside a value (a string,
	// a number or literal, or a member name still waiting for its value),
	// not merely before closing brackets: the arguments are then not what
	// the model meant to send.
	cut bool

	pos     int    // offset of the next byte to read
	failAt  int    // offset of the offending byte when st == psFailed
	failWhy string // what was expected; see failMsg
	failTok string // the offending text

	// hook, when set, is called for every member or element as it is
	// attached (containers before their contents). Returning false rejects
	// the input: the parser fails at the current offset.
	hook func(depth int, key string, v *value) bool
}

// newParser returns a parser whose first byte will be at offset pos.
func newParser(pos int, lenientQuotes bool) *parser {
	none := byteCache{at: -1}
	return &parser{pos: pos, start: pos, lenientQuotes: lenientQuotes, tagged: lenientQuotes, dq: none, sq: none, bs: none, tq: none}
}

// strictRetry returns a strict parser for the same input when p took some
// quote for a literal one and then went wrong (failed, or ran on to the end
// of the text): the guess was wrong, most likely reading on past the call's
// end, and the strict reading is the one to report. It returns nil when
// there is nothing to retry. Each payload is retried at most once, so the
// work stays linear.
func (p *parser) strictRetry() *parser {
	if !p.lenientQuotes || p.strays == 0 {
		return nil
	}
	q := newParser(p.start, false)
	q.hook, q.tagged = p.hook, p.tagged
	return q
}

// done reports whether the root value is complete.
func (p *parser) done() bool { return p.st == psDone }

// failed reports whether the input turned out not to be JSON.
func (p *parser) failed() bool { return p.st == psFailed }

// open reports whether the parser still wants input.
func (p *parser) open() bool { return p.st != psDone && p.st != psFailed }

// fail stops the parse. The message is built only when asked for (failMsg):
// candidates in prose fail often, and their messages are never read.
func (p *parser) fail(at int, why, tok string) {
	p.st = psFailed
	p.failAt = at
	p.failWhy = why
	p.failTok = tok
}

// failMsg says why the input is not JSON.
func (p *parser) failMsg() string {
	if p.failTok == "" {
		return p.failWhy
	}
	return fmt.Sprintf("unexpected %q %s", clip(p.failTok, maxQuoted), p.failWhy)
}

// feed parses buf[p.pos:] until the root value completes, the input fails,
// or buf is exhausted. buf is the whole text seen so far; offsets are
// positions in it.
func (p *parser) feed(buf []byte) {
	p.wait = false
	for p.pos < len(buf) && p.open() && !p.wait {
		switch p.st {
		case psString:
			p.feedString(buf)
			continue
		case psQuote:
			p.feedQuote(buf)
			continue
		case psScalar:
			c := buf[p.pos]
			if isScalarByte(c) {
				p.tok = append(p.tok, c)
				p.pos++
				continue
			}
			p.endScalar()
			continue
		case psBareKey:
			if c := buf[p.pos]; isLetter(c) || isDigit(c) || c == '_' || c == '$' {
				p.tok = append(p.tok, c)
				p.pos++
				continue
			}
			p.stack[len(p.stack)-1].key = string(p.tok)
			p.st = psColon
			continue
		case psComment:
			p.feedComment(buf)
			continue
		}
		c := buf[p.pos]
		if isSpace(c) {
			p.nl = p.nl || (c == '\n' && p.st == psCommaOrEnd)
			p.pos++
			continue
		}
		if c == '/' && p.tagged {
			if started, wait := p.startComment(buf); started || wait {
				p.wait = wait
				continue
			}
		}
		if c == typoLead && (p.st == psValue || p.st == psKeyOrEnd) {
			if len(buf)-p.pos < 3 {
				return // the rest of the character is still to come
			}
			if typoQuote(buf[p.pos:]) {
				p.pos += 3
				p.startString('"', p.st == psKeyOrEnd)
				p.typo = true
				continue
			}
		}
		p.structural(c)
	}
}

// structural handles a non-space byte outside strings and scalars.
func (p *parser) structural(c byte) {
	at := p.pos
	nl := p.nl
	p.nl = false
	switch p.st {
	case psValue:
		switch {
		case c == '{' || c == '[':
			p.pos++
			p.openContainer(c, at)
		case c == '"' || c == '\'':
			p.pos++
			p.startString(c, false)
		case c == ']' && p.closeOK:
			p.pos++
			p.closeContainer()
		case c == '-' || isDigit(c) || isLetter(c):
			p.st = psScalar
			p.tokStart = at
			p.tok = p.tok[:0]
		default:
			p.fail(at, "where a value should be", string(c))
		}
	case psKeyOrEnd:
		switch c {
		case '"', '\'':
			p.pos++
			p.startString(c, true)
		case '}':
			p.pos++
			p.closeContainer()
		default:
			if p.tagged && (isLetter(c) || c == '_' || c == '$') {
				p.st, p.tokStart, p.tok = psBareKey, at, p.tok[:0]
				return
			}
			p.fail(at, "where a member name should be", string(c))
		}
	case psColon:
		if c != ':' {
			p.fail(at, "where ':' should be", string(c))
			return
		}
		p.pos++
		p.st, p.closeOK = psValue, false
	case psCommaOrEnd:
		top := p.stack[len(p.stack)-1].v
		switch {
		case c == ',' && top.kind == kindObject:
			p.pos++
			p.st = psKeyOrEnd
		case c == ',':
			p.pos++
			p.st, p.closeOK = psValue, true
		case c == '}' && top.kind == kindObject, c == ']' && top.kind == kindArray:
			p.pos++
			p.closeContainer()
		case nl && p.tagged && top.kind == kindObject && (c == '"' || c == '\'' || isLetter(c) || c == '_' || c == '$'):
			p.st = psKeyOrEnd // a comma missing at the end of a line: c starts the next member
		default:
			p.fail(at, "after a value", string(c))
		}
	}
}

func (p *parser) openContainer(c byte, at int) {
	if len(p.stack) >= maxDepth {
		p.fail(at, "nesting deeper than "+strconv.Itoa(maxDepth)+" levels", "")
		return
	}
	v := &value{kind: kindArray}
	if c == '{' {
		v.kind = kindObject
	}
	if !p.attach(v) {
		return
	}
	p.stack = append(p.stack, frame{v: v})
	if c == '{' {
		p.st = psKeyOrEnd
	} else {
		p.st, p.closeOK = psValue, true
	}
}

func (p *parser) closeContainer() {
	p.stack = p.stack[:len(p.stack)-1]
	if len(p.stack) == 0 {
		p.st = psDone
		return
	}
	p.st = psCommaOrEnd
}

// attach adds v to the innermost open container (or makes it the root).
func (p *parser) attach(v *value) bool {
	if len(p.stack) == 0 {
		p.root = v
		if v.kind != kindObject && v.kind != kindArray {
			p.st = psDone
		}
		return true
	}
	f := &p.stack[len(p.stack)-1]
	key := ""
	if f.v.kind == kindObject {
		key = f.key
		f.v.keys = append(f.v.keys, key)
	}
	f.v.elems = append(f.v.elems, v)
	p.st = psCommaOrEnd
	if p.hook != nil && !p.hook(len(p.stack), key, v) {
		p.fail(p.pos, "rejected", "")
		return false
	}
	return true
}

// finish ends input that was cut off: an open string is closed with what it
// holds, a member name without a value and an incomplete number or literal
// are dropped, and open arrays and objects are closed. It reports whether
// anything had to be repaired. It does nothing to a failed parse.
func (p *parser) finish() (repaired bool) {
	if p.st == psComment {
		p.st = p.cmtRet // the text ended in a comment: what was due is missing
	}
	switch p.st {
	case psDone, psFailed:
		return false
	case psColon, psBareKey:
		p.cut = true
	case psValue:
		// After ':' a value was due; after '[' or ',' in an array only the
		// closing bracket is missing.
		p.cut = !p.closeOK && len(p.stack) > 0
	case psString:
		p.cut = true
		p.esc = 0
		p.flushSurrogate()
		if !p.isKey {
			p.attach(&value{kind: kindString, str: string(p.tok)})
		}
	case psQuote:
		p.endString()
	case psScalar:
		// A number may have lost digits, a literal its end: doubtful either way.
		p.cut = true
		if lit, ok := scalarText(p.tok); ok {
			k := kindLiteral
			if lit == "" {
				k, lit = kindNumber, string(p.tok)
			}
			p.attach(&value{kind: k, str: lit})
		}
	}
	if p.st == psFailed { // a hook rejected the last value
		return false
	}
	if p.root == nil {
		p.fail(p.pos, "no JSON value", "")
		return false
	}
	p.stack = p.stack[:0]
	p.st = psDone
	return true
}

package toolcall

import (
	"bytes"
	"slices"
	"unicode/utf8"

	"github.com/olly-agent/olly/internal/jsonnum"
)

// This file holds the parser's lexical layer: strings with their escapes,
// numbers and literals.

func (p *parser) startString(q byte, isKey bool) {
	p.st = psString
	p.quote = q
	p.typo = false
	p.triple = false
	p.isKey = isKey
	p.esc = 0
	p.hiSur = 0
	p.tok = p.tok[:0]
}

// feedString consumes string contents. The common case, a run of ordinary
// bytes, is found with vectorised searches for the closing quote and for a
// backslash; their results are remembered, so that a string with many
// escapes does not search again and again for a quote far ahead.
func (p *parser) feedString(buf []byte) {
	for p.pos < len(buf) {
		if p.esc != 0 {
			p.feedEscape(buf[p.pos])
			continue
		}
		if p.typo {
			if !p.feedTypoString(buf) {
				p.wait = true
				return
			}
			if p.st != psString {
				return // the string ended
			}
			continue
		}
		qc := &p.dq
		if p.quote == '\'' {
			qc = &p.sq
		}
		end := len(buf)
		if q := qc.next(buf, p.pos, len(buf), p.quote); q >= 0 {
			end = q
			// The string most likely ends there: make room once instead of
			// growing step by step through a large value.
			p.tok = slices.Grow(p.tok, q-p.pos)
		}
		// A backslash matters only before the quote; looking further would
		// scan the rest of the text once per string.
		if b := p.bs.next(buf, p.pos, end, '\\'); b >= 0 && b < end {
			end = b
		}
		if end > p.pos {
			p.flushSurrogate()
			p.tok = append(p.tok, buf[p.pos:end]...)
			p.pos = end
			continue
		}
		if buf[p.pos] == '\\' {
			p.esc = 1
			p.pos++
			continue
		}
		// A quote.
		if p.triple {
			if !p.tripleQuote(buf) {
				return
			}
			continue
		}
		p.pos++
		p.flushSurrogate()
		if p.lenientQuotes && !p.isKey {
			p.st = psQuote
			p.quoteWS = p.quoteWS[:0]
			return
		}
		p.endString()
		return
	}
}

// Typographic quotes (U+201C “ and U+201D ”), which some chat front ends
// and models put around JSON keys and strings. Either one opens a string,
// and either one closes it: models do not pair them reliably.
const (
	typoLead = 0xE2
)

// typoQuote reports whether b starts with a typographic double quote.
func typoQuote(b []byte) bool {
	return len(b) >= 3 && b[0] == typoLead && b[1] == 0x80 && (b[2] == 0x9C || b[2] == 0x9D)
}

// feedTypoString consumes contents of a string opened by a typographic
// quote, up to the next escape or quote. It reports false when it needs
// more input to tell whether a 0xE2 byte starts a closing quote.
func (p *parser) feedTypoString(buf []byte) bool {
	end := len(buf)
	if q := p.tq.next(buf, p.pos, len(buf), typoLead); q >= 0 {
		end = q
	}
	if b := p.bs.next(buf, p.pos, end, '\\'); b >= 0 && b < end {
		end = b
	}
	if end > p.pos {
		p.flushSurrogate()
		p.tok = append(p.tok, buf[p.pos:end]...)
		p.pos = end
		return true
	}
	if buf[p.pos] == '\\' {
		p.esc = 1
		p.pos++
		return true
	}
	if len(buf)-p.pos < 3 {
		return false
	}
	if !typoQuote(buf[p.pos:]) {
		// Another character of the same block (a dash, an ellipsis).
		p.tok = append(p.tok, buf[p.pos])
		p.pos++
		return true
	}
	p.typoQ = [3]byte(buf[p.pos : p.pos+3])
	p.pos += 3
	p.flushSurrogate()
	if p.lenientQuotes && !p.isKey {
		p.st = psQuote
		p.quoteWS = p.quoteWS[:0]
		return true
	}
	p.endString()
	return true
}

// byteCache remembers where the next occurrence of one byte is. The parser
// only moves forward and the text only grows, so a found offset stays the
// answer until it is passed, and a region searched in vain is not searched
// again.
type byteCache struct {
	at  int // offset of the next occurrence, or -1 when none was found before lim
	lim int // end of the region searched
}

// next returns the offset of the first c in buf[from:limit], or -1.
func (bc *byteCache) next(buf []byte, from, limit int, c byte) int {
	if bc.at >= from {
		if bc.at < limit {
			return bc.at
		}
		return -1
	}
	start := from
	if bc.at < 0 && bc.lim > from {
		start = bc.lim
	}
	if start >= limit {
		return -1
	}
	if k := bytes.IndexByte(buf[start:limit], c); k >= 0 {
		bc.at = start + k
		return bc.at
	}
	bc.at, bc.lim = -1, limit
	return -1
}

// tripleQuote reads a quote inside a string opened by three: three end
// it, one or two are text. It reports false when the string ended, or when
// it needs more input to tell.
func (p *parser) tripleQuote(buf []byte) bool {
	if len(buf)-p.pos < 3 {
		p.wait = true
		return false
	}
	if buf[p.pos+1] != p.quote || buf[p.pos+2] != p.quote {
		p.tok = append(p.tok, p.quote)
		p.pos++
		return true
	}
	p.pos += 3
	p.flushSurrogate()
	p.endString()
	return false
}

// feedQuote decides whether the quote just read closed the string (see
// parser.lenientQuotes). A third quote right after an empty string opens
// a Python triple-quoted string (three double or three single quotes), as
// models write a file's content: in JSON an empty string cannot be
// followed by a quote, so no valid JSON reads differently.
func (p *parser) feedQuote(buf []byte) {
	for p.pos < len(buf) {
		c := buf[p.pos]
		if c == p.quote && !p.typo && !p.triple && len(p.tok) == 0 && len(p.quoteWS) == 0 {
			p.pos++
			p.st, p.triple = psString, true
			return
		}
		if isSpace(c) {
			p.quoteWS = append(p.quoteWS, c)
			p.pos++
			continue
		}
		// What may follow a string in JSON, or another string (a missing
		// comma): the quote closed it. Anything else: the model forgot to
		// escape it.
		if c == typoLead && len(buf)-p.pos < 3 {
			p.wait = true // a typographic quote (another string) or not
			return
		}
		if c == ',' || c == '}' || c == ']' || c == ':' || c == '"' || typoQuote(buf[p.pos:]) {
			p.endString()
			p.nl = p.st == psCommaOrEnd && bytes.IndexByte(p.quoteWS, '\n') >= 0
			return
		}
		// A stray quote inside the string: keep it and what followed.
		p.strays++
		if p.typo {
			p.tok = append(p.tok, p.typoQ[:]...)
		} else {
			p.tok = append(p.tok, p.quote)
		}
		p.tok = append(p.tok, p.quoteWS...)
		p.st = psString
		return
	}
}

func (p *parser) feedEscape(c byte) {
	if p.esc == 1 {
		p.pos++
		p.esc = 0
		if c == 'u' {
			p.esc, p.hexN, p.hexV = 2, 0, 0
			return
		}
		p.flushSurrogate()
		switch c {
		case 'n':
			p.tok = append(p.tok, '\n')
		case 't':
			p.tok = append(p.tok, '\t')
		case 'r':
			p.tok = append(p.tok, '\r')
		case 'b':
			p.tok = append(p.tok, '\b')
		case 'f':
			p.tok = append(p.tok, '\f')
		case '"', '\'', '\\', '/':
			p.tok = append(p.tok, c)
		default:
			// Unknown escapes such as \d in a regular expression: models mean
			// the backslash literally.
			p.tok = append(p.tok, '\\', c)
		}
		return
	}
	h, ok := hexVal(c)
	if !ok {
		// Not a \u escape after all: keep the text and re-read c.
		p.flushSurrogate()
		p.tok = append(p.tok, '\\', 'u')
		p.tok = append(p.tok, p.hexRaw[:p.hexN]...)
		p.esc = 0
		return
	}
	p.pos++
	p.hexV = p.hexV<<4 | h
	p.hexRaw[p.hexN] = c
	p.hexN++
	if p.hexN < 4 {
		return
	}
	p.esc = 0
	r := p.hexV
	switch {
	case r >= 0xD800 && r < 0xDC00:
		p.flushSurrogate()
		p.hiSur = r
	case r >= 0xDC00 && r < 0xE000 && p.hiSur != 0:
		r = 0x10000 + (p.hiSur-0xD800)<<10 + (r - 0xDC00)
		p.hiSur = 0
		p.tok = utf8.AppendRune(p.tok, r)
	default:
		p.flushSurrogate()
		p.tok = utf8.AppendRune(p.tok, r) // a lone low surrogate becomes U+FFFD
	}
}

// flushSurrogate writes a high surrogate that was not followed by its low
// half as U+FFFD.
func (p *parser) flushSurrogate() {
	if p.hiSur != 0 {
		p.tok = utf8.AppendRune(p.tok, utf8.RuneError)
		p.hiSur = 0
	}
}

func (p *parser) endString() {
	s := string(p.tok)
	if p.isKey {
		p.stack[len(p.stack)-1].key = s
		p.st = psColon
		return
	}
	p.attach(&value{kind: kindString, str: s})
}

// endScalar classifies the number or literal just read.
func (p *parser) endScalar() {
	lit, ok := scalarText(p.tok)
	if !ok {
		p.fail(p.tokStart, "is not a JSON value", string(p.tok))
		return
	}
	k := kindLiteral
	if lit == "" {
		k, lit = kindNumber, string(p.tok)
	}
	p.attach(&value{kind: k, str: lit})
}

// scalarText validates a number or literal. It returns the normalised
// literal ("true", "false", "null"), or "" with ok for a valid number.
func scalarText(t []byte) (lit string, ok bool) {
	switch string(t) {
	case "true", "True":
		return "true", true
	case "false", "False":
		return "false", true
	case "null", "None":
		return "null", true
	}
	return "", validNumber(t)
}

// validNumber reports whether t is a JSON number.
func validNumber(t []byte) bool {
	return len(t) > 0 && jsonnum.End(t, 0) == len(t)
}

func isSpace(c byte) bool  { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isScalarByte(c byte) bool {
	return isDigit(c) || isLetter(c) || c == '-' || c == '+' || c == '.'
}

func hexVal(c byte) (rune, bool) {
	switch {
	case isDigit(c):
		return rune(c - '0'), true
	case c|0x20 >= 'a' && c|0x20 <= 'f':
		return rune(c|0x20-'a') + 10, true
	}
	return 0, false
}

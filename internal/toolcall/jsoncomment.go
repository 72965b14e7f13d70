package toolcall

import "bytes"

// Comments in tagged calls: models annotate the JSON they write, as in
// JavaScript (// to the end of the line, /* … */). In a tagged payload
// (parser.tagged) a comment where a value, a member name, ':' or ',' may
// come is skipped; a '/' there is never JSON, so no valid JSON reads
// differently. Right after a string value, the lenient-quote guess first
// takes the quote for a literal one (code in a file's content writes
// "x" // note); when that reading fails, the strict retry, which keeps
// comments, reads the comment.

// startComment reports whether a comment starts at p.pos (and then
// enters it), or whether it cannot tell before more input arrives (wait).
func (p *parser) startComment(buf []byte) (started, wait bool) {
	if !p.tagged || buf[p.pos] != '/' {
		return false, false
	}
	if len(buf)-p.pos < 2 {
		return false, true
	}
	switch buf[p.pos+1] {
	case '/':
		p.block = false
	case '*':
		p.block = true
	default:
		return false, false
	}
	p.pos += 2
	p.cmtRet, p.st = p.st, psComment
	return true, false
}

// feedComment skips comment text; at the comment's end the parser expects
// what it expected before it.
func (p *parser) feedComment(buf []byte) {
	if !p.block {
		k := bytes.IndexByte(buf[p.pos:], '\n')
		if k < 0 {
			p.pos = len(buf)
			return
		}
		p.pos += k + 1
		p.st = p.cmtRet
		p.nl = p.nl || p.st == psCommaOrEnd // the line ended
		return
	}
	k := bytes.Index(buf[p.pos:], []byte("*/"))
	if k < 0 {
		// Keep a final '*': the '/' may come in the next feed.
		p.pos = len(buf)
		if buf[len(buf)-1] == '*' {
			p.pos--
			p.wait = true
		}
		return
	}
	p.pos += k + 2
	p.st = p.cmtRet
}

package shell

import (
	"bytes"
	"strings"
)

// A state file a read-only command could write is read here as data, in
// Go, never sourced by the workspace-write bash (see handover.go). The
// parser takes exactly what bash's "declare -p" prints (bash 4.4 to 5.2:
// values in double quotes, or in $'…' from 5.2 on, arrays as
// ([key]=value …)) and nothing else: a statement it cannot read ends the
// variable section there, and what follows is dropped (fail closed).

// shVar is one variable as "declare -p" printed it.
type shVar struct {
	name  string
	attrs string // the attribute letters as printed ("" for "--")
	set   bool   // it has a value (declare -- x prints none)
	value string // a scalar's value
	elems []shElem
}

// shElem is one element of an indexed or associative array.
type shElem struct{ key, value string }

// array reports whether v is an indexed or associative array.
func (v *shVar) array() bool { return strings.ContainsAny(v.attrs, "aA") }

// parseDeclares reads the variable section at the start of a saved state
// (the "declare -p" part: it ends at the first line that does not start
// with "declare -", or that declares functions, as "declare -F" does).
// rest is where the section ends (the functions and aliases follow).
// complete is false when a statement in that section could not be read:
// the variables after it are not returned.
func parseDeclares(b []byte) (vars []shVar, rest int, complete bool) {
	p := declParser{b: b}
	for p.i < len(p.b) {
		if !bytes.HasPrefix(p.b[p.i:], []byte("declare -")) {
			return vars, p.i, true
		}
		at := p.i
		v, end, ok := p.statement()
		if end {
			return vars, at, true
		}
		if !ok {
			return vars, at, false
		}
		vars = append(vars, v)
	}
	return vars, p.i, true
}

type declParser struct {
	b []byte
	i int
}

// statement reads one "declare -ATTRS name[=value]\n"; end: it declares
// functions, the end of the variable section.
func (p *declParser) statement() (v shVar, end, ok bool) {
	p.i += len("declare -")
	start := p.i
	for p.i < len(p.b) && (isLetter(p.b[p.i]) || p.b[p.i] == '-') {
		p.i++
	}
	v.attrs = string(p.b[start:p.i])
	if strings.ContainsAny(v.attrs, "fF") {
		return v, true, false
	}
	if v.attrs == "-" {
		v.attrs = ""
	} else if v.attrs == "" || strings.Contains(v.attrs, "-") {
		return v, false, false
	}
	if !p.eat(' ') {
		return v, false, false
	}
	start = p.i
	for p.i < len(p.b) && isNameByte(p.b[p.i]) {
		p.i++
	}
	v.name = string(p.b[start:p.i])
	if !isIdentifier(v.name) {
		return v, false, false
	}
	if p.eat('=') {
		v.set = true
		if v.array() {
			ok = p.elements(&v)
		} else {
			v.value, ok = p.quoted()
		}
		if !ok {
			return v, false, false
		}
	}
	if p.i < len(p.b) && !p.eat('\n') {
		return v, false, false
	}
	return v, false, true
}

// elements reads "([k]=v [k]=v …)"; bash puts a space before the ")" of
// an associative array.
func (p *declParser) elements(v *shVar) bool {
	if !p.eat('(') {
		return false
	}
	assoc := strings.Contains(v.attrs, "A")
	for {
		for p.eat(' ') {
		}
		if p.eat(')') {
			return true
		}
		if !p.eat('[') {
			return false
		}
		key, ok := p.key(assoc)
		if !ok || !p.eat(']') || !p.eat('=') {
			return false
		}
		val, ok := p.quoted()
		if !ok {
			return false
		}
		v.elems = append(v.elems, shElem{key, val})
		if p.i < len(p.b) && p.b[p.i] != ' ' && p.b[p.i] != ')' {
			return false
		}
	}
}

// key reads an array subscript: digits for an indexed array; for an
// associative one a quoted string or a bare word of characters bash
// leaves unquoted and that expand to themselves.
func (p *declParser) key(assoc bool) (string, bool) {
	if p.i < len(p.b) && (p.b[p.i] == '"' || p.b[p.i] == '$') {
		if !assoc {
			return "", false
		}
		k, ok := p.quoted()
		return k, ok && k != "" // bash refuses an empty key
	}
	start := p.i
	for p.i < len(p.b) && bareKeyByte(p.b[p.i], assoc) {
		p.i++
	}
	k := string(p.b[start:p.i])
	if k == "" || (!assoc && len(k) > 18) {
		return "", false
	}
	return k, true
}

func bareKeyByte(c byte, assoc bool) bool {
	if c >= '0' && c <= '9' {
		return true
	}
	return assoc && (isLetter(c) || strings.IndexByte("_.-+:/@%,=^", c) >= 0)
}

// quoted reads "…" or $'…'.
func (p *declParser) quoted() (string, bool) {
	switch {
	case p.eat('"'):
		return p.doubleQuoted()
	case bytes.HasPrefix(p.b[p.i:], []byte("$'")):
		p.i += 2
		return p.ansiQuoted()
	}
	return "", false
}

// doubleQuoted reads the rest of a "…" string as bash's printer writes it:
// $, `, " and \ escaped with a backslash. An unescaped $ or ` (which
// bash would expand) is refused.
func (p *declParser) doubleQuoted() (string, bool) {
	var sb strings.Builder
	for p.i < len(p.b) {
		c := p.b[p.i]
		p.i++
		switch c {
		case '"':
			return sb.String(), true
		case '$', '`', 0:
			return "", false
		case '\\':
			if p.i >= len(p.b) {
				return "", false
			}
			n := p.b[p.i]
			switch n {
			case '$', '`', '"', '\\':
				sb.WriteByte(n)
				p.i++
			case '\n': // a line continuation: bash removes both
				p.i++
			default:
				sb.WriteByte('\\')
			}
		default:
			sb.WriteByte(c)
		}
	}
	return "", false
}

// ansiQuoted reads the rest of a $'…' string: the escapes bash's printer
// writes (and the other usual ones); \u, \U, \c and unknown escapes, and
// anything that would make a NUL (which ends a bash string), are refused.
func (p *declParser) ansiQuoted() (string, bool) {
	var sb strings.Builder
	for p.i < len(p.b) {
		c := p.b[p.i]
		p.i++
		switch c {
		case '\'':
			return sb.String(), true
		case 0:
			return "", false
		case '\\':
			r, ok := p.ansiEscape()
			if !ok || r == 0 {
				return "", false
			}
			sb.WriteByte(r)
		default:
			sb.WriteByte(c)
		}
	}
	return "", false
}

var ansiSimple = map[byte]byte{
	'a': 7, 'b': 8, 'e': 27, 'E': 27, 'f': 12, 'n': '\n', 'r': '\r', 't': '\t', 'v': 11,
	'\\': '\\', '\'': '\'', '"': '"', '?': '?',
}

func (p *declParser) ansiEscape() (byte, bool) {
	if p.i >= len(p.b) {
		return 0, false
	}
	c := p.b[p.i]
	p.i++
	if r, ok := ansiSimple[c]; ok {
		return r, true
	}
	switch {
	case c >= '0' && c <= '7':
		n := int(c - '0')
		for k := 0; k < 2 && p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '7'; k++ {
			n = n*8 + int(p.b[p.i]-'0')
			p.i++
		}
		return byte(n), true // bash keeps the low byte, as here
	case c == 'x':
		n, digits := 0, 0
		for ; digits < 2 && p.i < len(p.b) && hexVal(p.b[p.i]) >= 0; digits++ {
			n = n*16 + hexVal(p.b[p.i])
			p.i++
		}
		return byte(n), digits > 0
	}
	return 0, false
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func (p *declParser) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

func isNameByte(c byte) bool { return isLetter(c) || c == '_' || (c >= '0' && c <= '9') }

// source writes v back as a declare statement (an array: the declare,
// then the assignment, on one line) in olly's own quoting:
// every value and key in single quotes, so sourcing it assigns and
// expands nothing, and through builtin, so that a function named declare
// in the bash that sources it does not run (and make the variables its
// locals). What is sourced is only what keepVar accepted, with the
// attributes carriedAttrs leaves (a, A, x: none makes bash evaluate or
// convert a value); canonical writes any variable, only to compare.
func (v *shVar) source(sb *strings.Builder) {
	sb.WriteString("builtin declare -")
	if v.attrs == "" {
		sb.WriteByte('-')
	}
	sb.WriteString(v.attrs)
	sb.WriteByte(' ')
	sb.WriteString(v.name)
	if v.set {
		if v.array() {
			// A compound assignment is one only after a plain declare
			// (after builtin, bash reads "(" as a syntax error): the
			// array is assigned after it, at the top level (a global).
			sb.WriteString("; " + v.name + "=(")
			assoc := strings.Contains(v.attrs, "A")
			for i, e := range v.elems {
				if i > 0 {
					sb.WriteByte(' ')
				}
				sb.WriteByte('[')
				if assoc {
					sb.WriteString(singleQuote(e.key))
				} else {
					sb.WriteString(e.key) // digits only (parseDeclares)
				}
				sb.WriteString("]=")
				sb.WriteString(singleQuote(e.value))
			}
			sb.WriteByte(')')
		} else {
			sb.WriteByte('=')
			sb.WriteString(singleQuote(v.value))
		}
	}
	sb.WriteByte('\n')
}

// singleQuote quotes s for bash: inside single quotes nothing is special
// but the quote itself.
func singleQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

package tools

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// query is a compiled search_workspace query. Matching is per line: a
// line matches when it contains the literal, or the regular expression
// matches inside it.
//
// Speed comes from literals: every line a regular expression can match
// contains one of lits (computed from its syntax tree), so a file without
// any of them is skipped after a vectorised byte search, and only lines
// holding one are given to the regexp engine.
//
// A pattern without a required literal may still require a run of
// characters from a class (search_class.go): then the lines holding such
// a run are the candidates.
type query struct {
	lits []*finder      // required literals (any of them); nil: none known
	run  *classRun      // a required run, when there are no literals
	re   *regexp.Regexp // verifies a candidate line; nil for a plain literal
	reM  *regexp.Regexp // re in multi-line mode, to scan a file without literals
}

// compileQuery builds a query. caseSensitive nil means: a literal is
// case-insensitive when it has no upper-case letter ("smart case"), a
// regular expression is case-sensitive unless it says (?i).
func compileQuery(text string, isRegex bool, caseSensitive *bool) (*query, error) {
	if text == "" {
		return nil, errors.New("the query is empty; give the text or pattern to search for")
	}
	if !isRegex {
		if strings.Contains(text, "\n") {
			return nil, errors.New("the query spans lines, but matches never do; search for one line of it")
		}
		fold := !hasUpper(text)
		if caseSensitive != nil {
			fold = !*caseSensitive
		}
		if !fold || isASCII(text) || !utf8.ValidString(text) {
			return &query{lits: []*finder{newFinder([]byte(text), fold)}}, nil
		}
		// Non-ASCII text without case: let the regexp engine fold it.
		text, isRegex = "(?i)"+regexp.QuoteMeta(text), true
	}
	if caseSensitive != nil && !*caseSensitive {
		text = "(?i)" + text
	}
	re, err := regexp.Compile(text)
	if err != nil {
		return nil, regexError(err)
	}
	reM, err := regexp.Compile("(?m)" + text)
	if err != nil {
		return nil, regexError(err)
	}
	q := &query{re: re, reM: reM}
	if parsed, err := syntax.Parse(text, syntax.Perl); err == nil {
		simple := parsed.Simplify()
		if set := required(simple); set.usable() {
			for _, l := range set.alts {
				q.lits = append(q.lits, newFinder([]byte(string(l.runes)), l.fold))
			}
		} else {
			q.run = requiredRun(simple)
		}
	}
	return q, nil
}

// regexError explains a pattern the engine refused.
func regexError(err error) error {
	var se *syntax.Error
	if errors.As(err, &se) {
		return fmt.Errorf("invalid regular expression: %s in %q. Escape special characters with a backslash (\\( \\. \\[), or set isRegex to false to search for the text as written", se.Code, se.Expr)
	}
	return fmt.Errorf("invalid regular expression: %v", err)
}

func hasUpper(s string) bool {
	for _, r := range s {
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// litSet is a set of literals one of which every match contains.
type litSet struct {
	alts []lit
	ok   bool
}

type lit struct {
	runes []rune
	fold  bool
}

// usable reports whether the set is worth searching for.
func (s litSet) usable() bool {
	if !s.ok || len(s.alts) == 0 {
		return false
	}
	for _, l := range s.alts {
		if len(l.runes) == 0 || (len(s.alts) > 1 && len(l.runes) < 2) {
			return false
		}
	}
	return true
}

// score ranks sets: longer shortest literal first, then fewer literals.
func (s litSet) score() int {
	if !s.usable() {
		return -1
	}
	shortest := 1 << 30
	for _, l := range s.alts {
		shortest = min(shortest, len(string(l.runes)))
	}
	return shortest*64 - len(s.alts)
}

// required computes a set of literals every match of re contains.
func required(re *syntax.Regexp) litSet {
	switch re.Op {
	case syntax.OpLiteral:
		return literalSet(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		return requiredConcat(re.Sub)
	case syntax.OpAlternate:
		var out litSet
		for _, sub := range re.Sub {
			s := required(sub)
			if !s.usable() {
				return litSet{}
			}
			out.alts = append(out.alts, s.alts...)
		}
		out.ok = len(out.alts) <= 16
		return out
	}
	return litSet{}
}

// requiredConcat joins adjacent literals of a concatenation and keeps the
// best set among its parts.
func requiredConcat(subs []*syntax.Regexp) litSet {
	var (
		best litSet
		run  []rune
		fold bool
	)
	consider := func(s litSet) {
		if s.score() > best.score() {
			best = s
		}
	}
	flush := func() {
		if len(run) > 0 {
			consider(literalSet(run, fold))
			run = nil
		}
	}
	for _, sub := range subs {
		if sub.Op == syntax.OpLiteral {
			f := sub.Flags&syntax.FoldCase != 0
			if len(run) > 0 && f != fold {
				flush()
			}
			run, fold = append(run, sub.Rune...), f
			continue
		}
		flush()
		consider(required(sub))
	}
	flush()
	return best
}

// literalSet makes a one-literal set. A case-folded literal is searched
// with ASCII folding, which misses the Unicode letters that fold to ASCII
// ones (K for k, ſ for s) and any non-ASCII letter's other cases; so only
// the longest piece free of those is required.
func literalSet(runes []rune, fold bool) litSet {
	if !fold {
		return litSet{alts: []lit{{runes: append([]rune(nil), runes...)}}, ok: true}
	}
	var best, cur []rune
	for _, r := range append(append([]rune(nil), runes...), 0) {
		if r == 0 || r >= utf8.RuneSelf || strings.ContainsRune("kKsS", r) {
			if len(cur) > len(best) {
				best = append([]rune(nil), cur...)
			}
			cur = cur[:0]
			continue
		}
		cur = append(cur, r)
	}
	if len(best) == 0 {
		return litSet{}
	}
	return litSet{alts: []lit{{runes: best, fold: true}}, ok: true}
}

// finder finds a literal in a buffer. It looks for the literal's rarest
// byte with bytes.IndexByte, which is vectorised, and checks around each
// hit: much faster than starting from the first byte when that byte is
// common. A case-insensitive finder (ASCII folding) looks for both cases
// of that byte.
type finder struct {
	lit    []byte // lower-cased when fold
	fold   bool
	k      int  // index in lit of the byte searched for
	lo, up byte // that byte's two cases (the same byte when exact)
}

func newFinder(l []byte, fold bool) *finder {
	f := &finder{lit: l, fold: fold}
	if fold {
		f.lit = bytes.ToLower(l)
	}
	best := -1
	for i, c := range f.lit {
		if r := rarity(c, fold); r > best {
			best, f.k = r, i
		}
	}
	f.lo, f.up = f.lit[f.k], f.lit[f.k]
	if fold && 'a' <= f.lo && f.lo <= 'z' {
		f.up = f.lo - 'a' + 'A'
	}
	return f
}

// commonBytes lists bytes by how often they appear in source code, most
// common first; bytes not listed are rarer than any listed.
const commonBytes = " etaoinsrlcdupmh\n.()gf,_=\tby;\"vwk-x'/:{}[]0123456789jqz<>*&!|+#$%@^~`?\\"

// rarity ranks a byte: higher is rarer. Searched exactly, a capital letter
// is rarer than its lower case; folded, both cases are searched.
func rarity(c byte, fold bool) int {
	upper := 'A' <= c && c <= 'Z'
	if upper {
		c += 'a' - 'A'
	}
	i := strings.IndexByte(commonBytes, c)
	if i < 0 {
		i = len(commonBytes)
	}
	if upper && !fold {
		i += len(commonBytes) / 2
	}
	return i
}

// cursor finds successive occurrences of one finder's literal in one
// buffer. It remembers the next occurrence of each case of the rare byte,
// so searching on from a later position never rescans: a scan costs one
// pass over the buffer per case, plus a comparison per occurrence of the
// rare byte.
type cursor struct {
	f              *finder
	buf            []byte
	next           int // start of the next occurrence found, or -1
	nextLo, nextUp int // next rare byte of each case; -1 unknown, len(buf) none
}

func newCursor(f *finder, buf []byte) cursor {
	return cursor{f: f, buf: buf, next: -1, nextLo: -1, nextUp: -1}
}

// index returns the start of the first occurrence at or after from, or -1.
func (c *cursor) index(from int) int {
	if c.next >= from {
		if c.next > len(c.buf) {
			return -1 // none left
		}
		return c.next
	}
	c.next = c.find(from)
	if c.next < 0 {
		c.next = len(c.buf) + 1 // nothing more: stays ahead of any from
		return -1
	}
	return c.next
}

func (c *cursor) find(from int) int {
	f, buf, n := c.f, c.buf, len(c.f.lit)
	for {
		s := from + f.k
		if s >= len(buf) {
			return -1
		}
		if c.nextLo < s {
			c.nextLo = indexFrom(buf, s, f.lo)
		}
		p := c.nextLo
		if f.up != f.lo {
			if c.nextUp < s {
				c.nextUp = indexFrom(buf, s, f.up)
			}
			p = min(p, c.nextUp)
		}
		if p >= len(buf) {
			return -1
		}
		start := p - f.k
		if start+n <= len(buf) && f.equal(buf[start:start+n]) {
			return start
		}
		from = start + 1
	}
}

func (f *finder) equal(b []byte) bool {
	if f.fold {
		return equalFoldLower(b, f.lit)
	}
	return bytes.Equal(b, f.lit)
}

// indexFrom is the index of c in buf at or after from, or len(buf).
func indexFrom(buf []byte, from int, c byte) int {
	if i := bytes.IndexByte(buf[from:], c); i >= 0 {
		return from + i
	}
	return len(buf)
}

// equalFoldLower compares b with lower, which is already lower-case,
// folding ASCII letters only.
func equalFoldLower(b, lower []byte) bool {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

package tools

import (
	"math"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// A pattern with no required literal (\d{9}, [0-9a-f]{40}, \b[A-Z]{5}\b)
// still has a required run: every match holds k consecutive characters
// from a known set. classRun finds the runs of k or more bytes from that
// set with a skipping loop that looks at one byte in k where the set is
// rare, and only their lines go to the regexp engine, which otherwise runs
// over every byte of every file at a few tens of MB/s.
//
// The set is of bytes: a character class's ASCII members, plus every byte
// from 0x80 up when the class holds any non-ASCII character (each of its
// UTF-8 bytes, and each invalid byte the engine reads as U+FFFD, is one of
// those). k characters in the class are then at least k consecutive bytes
// in the set. '\n' is never in it: a match lies within one line.
type classRun struct {
	in [256]bool
	k  int
}

// minClassBits is how selective a run must be to be worth using: k times
// log2(256 / bytes in the set). \d{9} scores 42, [0-9a-f]{8} 28; \w{5}
// (10) would make nearly every line a candidate.
const minClassBits = 16

// classPart is what requiredRun knows of a node: whether everything it
// matches is made of characters from set (pure), and then at least how
// many; and the best run found inside it.
type classPart struct {
	pure bool
	set  *[256]bool
	n    int
	best *classRun
}

// requiredRun computes the most selective required run of re, or nil.
func requiredRun(re *syntax.Regexp) *classRun {
	p := runOf(re)
	best := p.best
	if p.pure {
		best = better(best, p.set, p.n)
	}
	if best == nil || best.bits() < minClassBits {
		return nil
	}
	return best
}

func (c *classRun) bits() float64 {
	n := 0
	for _, in := range c.in {
		if in {
			n++
		}
	}
	if n == 0 {
		return math.Inf(1)
	}
	return float64(c.k) * math.Log2(256/float64(n))
}

// better returns the more selective of best and the run of n bytes from
// set.
func better(best *classRun, set *[256]bool, n int) *classRun {
	if set == nil || n == 0 {
		return best
	}
	c := &classRun{in: *set, k: n}
	if best == nil || c.bits() > best.bits() {
		return c
	}
	return best
}

func runOf(re *syntax.Regexp) classPart {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		// Zero width: a run goes on across it.
		return classPart{pure: true, set: &[256]bool{}}
	case syntax.OpLiteral:
		set := &[256]bool{}
		for _, r := range re.Rune {
			addRune(set, r, re.Flags&syntax.FoldCase != 0)
		}
		return classPart{pure: true, set: set, n: len(re.Rune)}
	case syntax.OpCharClass:
		set := &[256]bool{}
		for i := 0; i+1 < len(re.Rune); i += 2 {
			addRange(set, re.Rune[i], re.Rune[i+1])
		}
		return classPart{pure: true, set: set, n: 1}
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		set := &[256]bool{}
		addRange(set, 0, unicode.MaxRune)
		return classPart{pure: true, set: set, n: 1}
	case syntax.OpCapture:
		return runOf(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		// It may match nothing: only what it would be made of is known.
		p := runOf(re.Sub[0])
		return classPart{pure: p.pure, set: p.set}
	case syntax.OpPlus:
		return runOf(re.Sub[0])
	case syntax.OpRepeat:
		p := runOf(re.Sub[0])
		p.n *= re.Min
		if re.Min == 0 {
			p.best = nil // the sub-expression need not occur at all
		}
		return p
	case syntax.OpConcat:
		var (
			out = classPart{pure: true, set: &[256]bool{}}
			cur = &[256]bool{}
			n   int
		)
		for _, sub := range re.Sub {
			p := runOf(sub)
			out.best = pick(out.best, p.best)
			if p.pure {
				union(cur, p.set)
				n += p.n
				continue
			}
			out.best = better(out.best, cur, n)
			out.pure = false
			cur, n = &[256]bool{}, 0
		}
		if out.pure {
			out.set, out.n = cur, n
		} else {
			out.best = better(out.best, cur, n)
		}
		return out
	case syntax.OpAlternate:
		out := classPart{pure: true, set: &[256]bool{}, n: math.MaxInt}
		for _, sub := range re.Sub {
			p := runOf(sub)
			if !p.pure {
				return classPart{} // which branch matched is unknown: nothing is required
			}
			union(out.set, p.set)
			out.n = min(out.n, p.n)
		}
		return out
	}
	return classPart{}
}

// pick returns the more selective of two runs.
func pick(a, b *classRun) *classRun {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case b.bits() > a.bits():
		return b
	}
	return a
}

func union(dst, src *[256]bool) {
	for i, in := range src {
		if in {
			dst[i] = true
		}
	}
}

// addRune adds r (and, folded, the other cases of r) to set.
func addRune(set *[256]bool, r rune, fold bool) {
	addRange(set, r, r)
	if fold {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			addRange(set, f, f)
		}
	}
}

// addRange adds the bytes that encode the characters lo–hi.
func addRange(set *[256]bool, lo, hi rune) {
	for c := lo; c <= hi && c < utf8.RuneSelf; c++ {
		if c != '\n' {
			set[c] = true
		}
	}
	if hi >= utf8.RuneSelf {
		for c := 0x80; c < 256; c++ {
			set[c] = true
		}
	}
}

// find returns the start of the first run of k or more bytes from the set
// that begins at or after from, or -1. It tests the last byte of each
// k-byte window: a byte outside the set rules out every window holding it,
// so the search moves on by k.
func (c *classRun) find(buf []byte, from int) int {
	k := c.k
	p := from + k - 1
	for p < len(buf) {
		if !c.in[buf[p]] {
			p += k
			continue
		}
		s := p
		for s > from && c.in[buf[s-1]] {
			s--
		}
		e := p + 1
		for e < len(buf) && e-s < k && c.in[buf[e]] {
			e++
		}
		if e-s >= k {
			return s
		}
		p = e + k // buf[e] is outside the set: the next window starts after it
	}
	return -1
}

package shell

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits bound what a model is shown of a long output: the first Head and
// the last Tail lines, each cut to MaxLineBytes. The full text stays in an
// artifact file the model can page through.
type Limits struct {
	Head         int
	Tail         int
	MaxLineBytes int
}

// DefaultLimits are the seed's terminal limits, 15 head and 85 tail lines
// (a command's verdict is usually at its end), with lines cut at 2,000
// bytes so one minified file cannot fill the context window.
func DefaultLimits() Limits {
	return Limits{Head: 15, Tail: 85, MaxLineBytes: 2000}
}

// orDefault replaces unusable values (negative counts, a line cap too small
// to hold a character) with the defaults.
func (l Limits) orDefault() Limits {
	d := DefaultLimits()
	if l == (Limits{}) {
		return d
	}
	if l.Head < 0 {
		l.Head = d.Head
	}
	if l.Tail < 0 {
		l.Tail = d.Tail
	}
	if l.MaxLineBytes < utf8.UTFMax {
		l.MaxLineBytes = d.MaxLineBytes
	}
	return l
}

// Truncate returns lines as the text a model is shown: all of them when
// they fit in lim, otherwise the head, a marker saying how many lines were
// left out and where to read them, and the tail. Over-long lines are cut
// with a note of how much is missing. artifact is the path of the full
// output ("" when there is none). Zero Limits mean DefaultLimits.
func Truncate(lines []string, lim Limits, artifact string) string {
	k := newKeeper(lim)
	for _, l := range lines {
		k.add([]byte(l), true)
	}
	return k.render(artifact)
}

// keptLine is one line as kept for the model: at most MaxLineBytes of its
// start, and how many bytes were cut from its end.
type keptLine struct {
	text []byte
	cut  int64
}

// keeper collects the head and tail of a stream of lines in bounded memory:
// Head lines, a ring of Tail lines, each at most MaxLineBytes. cutN counts
// the cut lines among those it looked at; lines skip passed over are left
// out of the view anyway.
type keeper struct {
	lim   Limits
	total int // complete lines seen
	head  []keptLine
	ring  []keptLine // the last lines, oldest at ring[next] once full
	next  int
	cur   keptLine // the line being added to
	open  bool     // cur has content not yet ended
	cutN  int      // lines that were cut to MaxLineBytes
}

func newKeeper(lim Limits) *keeper {
	lim = lim.orDefault()
	return &keeper{lim: lim, head: make([]keptLine, 0, lim.Head)}
}

// add appends seg to the current line and, when eol, ends the line.
func (k *keeper) add(seg []byte, eol bool) {
	room := k.lim.MaxLineBytes - len(k.cur.text)
	if k.cur.cut > 0 {
		room = 0 // once cut, the kept text stays a prefix of the line
	}
	if len(seg) <= room {
		k.cur.text = append(k.cur.text, seg...)
	} else {
		n := max(room, 0)
		for n > 0 && n < len(seg) && !utf8.RuneStart(seg[n]) {
			n--
		}
		k.cur.text = append(k.cur.text, seg[:n]...)
		k.cur.cut += int64(len(seg) - n)
	}
	k.open = true
	if eol {
		k.endLine()
	}
}

// write takes the next piece of a text stream whose lines end with '\n'.
func (k *keeper) write(p []byte) {
	for len(p) > 0 {
		if len(k.head) == k.lim.Head {
			p = k.skip(p)
		}
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			k.add(p, false)
			return
		}
		k.add(p[:i], true)
		p = p[i+1:]
	}
}

// skip counts and drops, unseen, the lines of p that would only pass
// through the tail ring: when more than Tail lines end in p, only the last
// Tail of them can still be shown. This keeps yes(1) from costing a ring
// rotation per line.
func (k *keeper) skip(p []byte) []byte {
	n := bytes.Count(p, newline)
	if n <= k.lim.Tail {
		return p
	}
	q := len(p)
	for range k.lim.Tail + 1 {
		q = bytes.LastIndexByte(p[:q], '\n')
	}
	// p[:q+1] ends n-Tail lines: the open one and those after it.
	k.total += n - k.lim.Tail
	k.cur.text, k.cur.cut, k.open = k.cur.text[:0], 0, false
	return p[q+1:]
}

func (k *keeper) endLine() {
	if k.cur.cut > 0 {
		k.cutN++
	}
	k.total++
	k.open = false
	switch {
	case len(k.head) < k.lim.Head:
		k.head = append(k.head, k.cur)
		k.cur = keptLine{}
	case k.lim.Tail == 0:
		k.cur.text, k.cur.cut = k.cur.text[:0], 0
	case len(k.ring) < k.lim.Tail:
		k.ring = append(k.ring, k.cur)
		k.cur = keptLine{}
	default:
		// Reuse the evicted line's buffer for the next line.
		old := k.ring[k.next]
		k.ring[k.next] = k.cur
		k.next = (k.next + 1) % k.lim.Tail
		k.cur = keptLine{text: old.text[:0]}
	}
}

// finish ends a line left open by a stream that stopped mid-line.
func (k *keeper) finish() {
	if k.open {
		k.endLine()
	}
}

// omitted is the number of lines between head and tail that are not kept.
func (k *keeper) omitted() int {
	return k.total - len(k.head) - len(k.ring)
}

// truncated reports whether the model's view lacks anything: lines left
// out, or lines cut.
func (k *keeper) truncated() bool { return k.omitted() > 0 || k.cutN > 0 }

// render writes the kept lines with the truncation marker.
func (k *keeper) render(artifact string) string {
	k.finish()
	var b strings.Builder
	for _, l := range k.head {
		writeKept(&b, l)
	}
	if n := k.omitted(); n > 0 {
		first := len(k.head) + 1
		fmt.Fprintf(&b, "[… %d lines truncated (lines %d–%d of %d)", n, first, first+n-1, k.total)
		if artifact != "" {
			fmt.Fprintf(&b, "; full output: %s — read it with read_file offsets", artifact)
		}
		b.WriteString("]\n")
	}
	for i := range k.ring {
		writeKept(&b, k.ring[(k.next+i)%len(k.ring)])
	}
	if n := k.omitted(); n <= 0 && k.cutN > 0 && artifact != "" {
		fmt.Fprintf(&b, "[%d long lines were cut; full output: %s]\n", k.cutN, artifact)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func writeKept(b *strings.Builder, l keptLine) {
	b.Write(l.text)
	if l.cut > 0 {
		fmt.Fprintf(b, " [… %d more bytes]", l.cut)
	}
	b.WriteByte('\n')
}

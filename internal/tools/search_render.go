package tools

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/olly-agent/olly/internal/event"
)

// shownLine is one line of a file's block in the result.
type shownLine struct {
	no    int
	text  []byte
	col   int
	match bool
	gap   bool // lines were left out before this one
}

// render is the second pass: it reads again the files shown, in path
// order, until the caps, and writes the seed's format (── path ──, → N:
// for a match, indented context lines).
func (t Search) render(ctx context.Context, req searchRequest, hits []fileHit, sk skips) *Result {
	total := 0
	for _, h := range hits {
		total += h.count
	}
	look := event.ToolAction{Text: fmt.Sprintf("Searched for %q", req.text)}
	if total == 0 {
		look.Detail = "no matches"
		return &Result{IsError: true, Content: t.noMatch(req, sk), Display: look}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Found %d matching lines in %d files for %q (%s).\n", total, len(hits), req.text, describeMode(req))
	var (
		shown, files int
		listing      []event.ListingEntry
		buf          []byte
	)
	for _, h := range hits {
		room := t.MaxMatches - shown
		if room <= 0 || b.Len() >= t.MaxOutputBytes || ctx.Err() != nil {
			break
		}
		lines, n := t.fileLines(h, req, min(room, t.PerFile), &buf)
		if n == 0 {
			continue // changed since the first pass
		}
		fmt.Fprintf(&b, "\n── %s ──\n", h.rel)
		for _, l := range lines {
			if l.gap {
				b.WriteString("  …\n")
			}
			mark := "  "
			if l.match {
				mark = "→ "
			}
			fmt.Fprintf(&b, "%s%d: %s\n", mark, l.no, t.cut(l.text, l.col))
		}
		if h.count > n {
			fmt.Fprintf(&b, "[… %d more matching lines in this file]\n", h.count-n)
		}
		shown += n
		files++
		listing = append(listing, event.ListingEntry{Path: h.rel, Count: h.count})
	}
	if files < len(hits) || shown < total {
		fmt.Fprintf(&b, "\n[Showing %d of %d matching lines, from %d of %d files. Narrow the search with directory, include or a more specific query.]\n",
			shown, total, files, len(hits))
	}
	if note := sk.note(t.MaxFileBytes); note != "" {
		b.WriteString("\n" + note + "\n")
	}
	look.Detail = fmt.Sprintf("%d matches in %d files", total, len(hits))
	look.Listing = listing
	return &Result{Content: strings.TrimSuffix(b.String(), "\n"), Display: look}
}

// fileLines reads a file again and returns up to limit matching lines with
// their context, and how many matches that is.
func (t Search) fileLines(h fileHit, req searchRequest, limit int, buf *[]byte) ([]shownLine, int) {
	data, _ := t.load(h.abs, buf)
	if data == nil {
		return nil, 0
	}
	type hit struct{ start, end, col, no int }
	var ms []hit
	no, last := 1, 0
	req.q.scan(data, func(start, end, col int) bool {
		no += bytes.Count(data[last:start], []byte{'\n'})
		last = start
		ms = append(ms, hit{start, end, col, no})
		return len(ms) < limit
	})
	var out []shownLine
	emitted := 0 // number of the last line written
	for i, m := range ms {
		var before []shownLine
		for s, k := m.start, 1; k <= req.context && s > 0 && m.no-k > emitted; k++ {
			ps := bytes.LastIndexByte(data[:s-1], '\n') + 1
			before = append(before, shownLine{no: m.no - k, text: data[ps : s-1]})
			s = ps
		}
		first := m.no - len(before)
		gap := req.context > 0 && emitted > 0 && first > emitted+1
		for j := len(before) - 1; j >= 0; j-- {
			l := before[j]
			l.gap, gap = gap, false
			out = append(out, l)
		}
		out = append(out, shownLine{no: m.no, text: data[m.start:m.end], col: m.col, match: true, gap: gap})
		emitted = m.no
		for e, k := m.end, 1; k <= req.context && e+1 < len(data); k++ {
			if i+1 < len(ms) && m.no+k >= ms[i+1].no {
				break
			}
			ne := lineEnd(data, e+1)
			out = append(out, shownLine{no: m.no + k, text: data[e+1 : ne]})
			emitted, e = m.no+k, ne
		}
	}
	// The buffer is reused for the next file: keep copies.
	for i := range out {
		out[i].text = append([]byte(nil), out[i].text...)
	}
	return out, len(ms)
}

// cut shortens a long line around its match, on rune boundaries, and
// drops a trailing \r.
func (t Search) cut(line []byte, col int) string {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if len(line) <= t.MaxLineBytes {
		return string(bytes.ToValidUTF8(line, []byte("\uFFFD")))
	}
	start := 0
	if col > t.MaxLineBytes/2 {
		start = col - t.MaxLineBytes/4
	}
	end := min(len(line), start+t.MaxLineBytes)
	for start > 0 && !utf8.RuneStart(line[start]) {
		start--
	}
	for end < len(line) && !utf8.RuneStart(line[end]) {
		end--
	}
	var b strings.Builder
	if start > 0 {
		fmt.Fprintf(&b, "[%d bytes] …", start)
	}
	b.Write(bytes.ToValidUTF8(line[start:end], []byte("\uFFFD")))
	if end < len(line) {
		fmt.Fprintf(&b, "… [%d more bytes]", len(line)-end)
	}
	return b.String()
}

func describeMode(req searchRequest) string {
	kind := "plain text"
	if req.regex {
		kind = "regular expression"
	}
	switch {
	case req.caseSensitive != nil && *req.caseSensitive:
		return kind + ", case-sensitive"
	case req.caseSensitive != nil:
		return kind + ", ignoring case"
	case !req.regex && !hasUpper(req.text):
		return kind + ", ignoring case"
	case !req.regex:
		return kind + ", case-sensitive"
	}
	return kind
}

// noMatch explains an empty result and what to try next.
func (t Search) noMatch(req searchRequest, sk skips) string {
	var b strings.Builder
	fmt.Fprintf(&b, "No matches for %q in %s (%s).", req.text, dirLabel(req.dirs), describeMode(req))
	if !req.regex && strings.ContainsAny(req.text, "|*()[]\\") {
		b.WriteString(" The query was searched as plain text; set isRegex to true to use |, .*, \\b and the like.")
	}
	if req.caseSensitive == nil && !req.regex && hasUpper(req.text) {
		b.WriteString(" The search matched case exactly because the query has capitals; set caseSensitive to false to ignore case.")
	}
	if !req.include.empty() {
		b.WriteString(" Only files matching include were searched.")
	}
	b.WriteString(" Files excluded by .gitignore are not searched.")
	if note := sk.note(t.MaxFileBytes); note != "" {
		b.WriteString(" " + note)
	}
	return b.String()
}

// note says which files were not searched.
func (s skips) note(maxBytes int64) string {
	var parts []string
	if s.binary > 0 {
		parts = append(parts, fmt.Sprintf("%d binary files", s.binary))
	}
	if s.large > 0 {
		parts = append(parts, fmt.Sprintf("%d files over %d MB", s.large, maxBytes>>20))
	}
	if s.unreadable > 0 {
		parts = append(parts, fmt.Sprintf("%d unreadable files", s.unreadable))
	}
	if len(parts) == 0 {
		return ""
	}
	return "[Not searched: " + strings.Join(parts, ", ") + ".]"
}

package workspace

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// FileList is a workspace's files as @file completion matches them: the
// one matcher the TUI, RPC (complete_files) and the web page share. It is
// immutable and safe for concurrent use.
type FileList struct {
	files []string
	lower []string // files lower-cased, for matching without case
	base  []int    // where each file's base name starts
}

// NewFileList prepares files (workspace-relative, slash-separated paths)
// for matching.
func NewFileList(files []string) *FileList {
	l := &FileList{files: files, lower: make([]string, len(files)), base: make([]int, len(files))}
	for i, f := range files {
		l.lower[i] = strings.ToLower(f)
		l.base[i] = strings.LastIndexByte(l.lower[i], '/') + 1
	}
	return l
}

// Files returns the listed paths, sorted; the caller must not change them.
func (l *FileList) Files() []string { return l.files }

// Len is the number of files listed.
func (l *FileList) Len() int { return len(l.files) }

// The match tiers, best first.
const (
	tierBase   = iota // the query is in the base name
	tierPath          // the query is elsewhere in the path
	tierSparse        // the query's characters appear in order (fuzzy)
)

// fileMatch is one candidate of Match.
type fileMatch struct {
	tier, span, i int
}

// Match returns at most limit paths that match query, without regard to
// case, best first: paths whose base name contains the query, then paths
// that contain it elsewhere, then paths holding its characters in order
// (so "wsmatch" finds internal/workspace/match.go), the tightest such
// match first. Within a tier shorter paths come first (the likelier
// match for what was typed), then in path order. An empty query lists the
// shortest paths.
func (l *FileList) Match(query string, limit int) []string {
	if limit <= 0 {
		return []string{}
	}
	q := strings.ToLower(strings.TrimSpace(query))
	// best holds the best candidates so far, sorted; a candidate worse
	// than the last of a full list is dropped at once, so a query that
	// matches every file costs one comparison per file.
	best := make([]fileMatch, 0, limit)
	for i, s := range l.lower {
		m, ok := l.match(i, s, q)
		if !ok {
			continue
		}
		if len(best) == limit && l.compare(m, best[limit-1]) >= 0 {
			continue
		}
		at, _ := slices.BinarySearchFunc(best, m, l.compare)
		if len(best) == limit {
			best = best[:limit-1]
		}
		best = slices.Insert(best, at, m)
	}
	out := make([]string, len(best))
	for k, m := range best {
		out[k] = l.files[m.i]
	}
	return out
}

// match places the file i (lower-cased s) for q.
func (l *FileList) match(i int, s, q string) (fileMatch, bool) {
	if q == "" {
		return fileMatch{tier: tierBase, i: i}, true
	}
	if j := strings.Index(s, q); j >= 0 {
		if j >= l.base[i] {
			return fileMatch{tier: tierBase, i: i}, true
		}
		return fileMatch{tier: tierPath, i: i}, true
	}
	span, ok := sparse(s, q)
	return fileMatch{tier: tierSparse, span: span, i: i}, ok
}

// compare orders candidates: tier, then a sparse match's span, then the
// path's length, then the path.
func (l *FileList) compare(a, b fileMatch) int {
	return cmp.Or(cmp.Compare(a.tier, b.tier), cmp.Compare(a.span, b.span),
		cmp.Compare(len(l.files[a.i]), len(l.files[b.i])), strings.Compare(l.files[a.i], l.files[b.i]))
}

// sparse finds q's characters in s in order, leftmost first, and returns
// the bytes the match spans.
func sparse(s, q string) (int, bool) {
	start, pos := -1, 0
	for _, r := range q {
		k := strings.IndexRune(s[pos:], r)
		if k < 0 {
			return 0, false
		}
		if start < 0 {
			start = pos + k
		}
		// The width found, not r's: an invalid byte is read as
		// utf8.RuneError but is one byte long.
		_, w := utf8.DecodeRuneInString(s[pos+k:])
		pos += k + w
	}
	return pos - start, true
}

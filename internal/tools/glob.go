package tools

import (
	"fmt"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// globSet is a set of doublestar patterns, matched the way find_files and
// search_workspace's include document: a pattern without / matches a base
// name anywhere ("*.go"), one with / matches the path relative to the
// directory searched or to its root ("src/**/*.ts").
type globSet struct {
	pats []string
}

// parseGlobs reads one pattern, or several separated by commas outside
// braces ("*.ts,*.tsx"). An empty text matches everything.
func parseGlobs(text string) (globSet, error) {
	var g globSet
	for _, p := range splitTopLevelCommas(text) {
		p = strings.TrimSpace(p)
		p = strings.TrimPrefix(p, "./")
		p = strings.TrimLeft(p, "/")
		if p == "" {
			continue
		}
		if !doublestar.ValidatePattern(p) {
			return g, fmt.Errorf("%q is not a valid glob: check for an unclosed [ or {, or a trailing \\", p)
		}
		g.pats = append(g.pats, p)
	}
	return g, nil
}

// empty reports whether the set matches everything.
func (g globSet) empty() bool { return len(g.pats) == 0 }

// match reports whether a file matches: rels are the slash paths it may be
// named by (relative to the directory searched, to its root).
func (g globSet) match(rels ...string) bool {
	if g.empty() {
		return true
	}
	for _, p := range g.pats {
		if !strings.Contains(p, "/") {
			if ok, _ := doublestar.Match(p, path.Base(rels[0])); ok {
				return true
			}
			continue
		}
		for _, r := range rels {
			if ok, _ := doublestar.Match(p, r); ok {
				return true
			}
		}
	}
	return false
}

// splitTopLevelCommas splits on commas that are not inside {…}, so brace
// alternatives stay whole.
func splitTopLevelCommas(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

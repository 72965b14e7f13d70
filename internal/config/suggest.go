package config

import (
	"strings"
	"unicode/utf8"
)

// suggest names the known key closest to an unknown one, or "" when none is
// close enough to be what was meant. Three cases are recognised: a typo or
// a different case (edit distance, ignoring case), a known key behind an
// extra prefix ("ollamaCopilot.agent.maxIterations", copied from the seed's
// VS Code settings, or "agent" nested twice), and a key written without its
// group ("maxIterations") when only one group has it.
func (r *registry) suggest(key string) string {
	if len(key) > maxSuggestLen {
		return ""
	}
	lower := strings.ToLower(key)
	for _, e := range r.entries {
		if strings.HasSuffix(lower, "."+strings.ToLower(e.key)) {
			return e.key
		}
	}
	best, bestDist := "", -1
	for _, e := range r.entries {
		d := editDistance(lower, strings.ToLower(e.key))
		if bestDist < 0 || d < bestDist {
			best, bestDist = e.key, d
		}
	}
	if bestDist >= 0 && bestDist <= closeEnough(key) {
		return best
	}
	if !strings.Contains(key, ".") {
		return r.uniqueLeaf(lower)
	}
	return ""
}

// maxSuggestLen bounds the work spent on suggestions: no key is this long,
// and edit distance is quadratic.
const maxSuggestLen = 80

// closeEnough is the largest edit distance still taken for a typo: two
// edits, or one in five characters for long keys.
func closeEnough(key string) int {
	return max(2, utf8.RuneCountInString(key)/5)
}

// uniqueLeaf finds the one key whose last part is leaf.
func (r *registry) uniqueLeaf(leaf string) string {
	found := ""
	for _, e := range r.entries {
		last := e.key[strings.LastIndexByte(e.key, '.')+1:]
		if strings.ToLower(last) == leaf {
			if found != "" {
				return ""
			}
			found = e.key
		}
	}
	return found
}

// suggestEnv is suggest for environment variable names.
func (r *registry) suggestEnv(name string) string {
	if len(name) > maxSuggestLen {
		return ""
	}
	best, bestDist := "", -1
	for _, e := range r.entries {
		d := editDistance(name, e.env)
		if bestDist < 0 || d < bestDist {
			best, bestDist = e.env, d
		}
	}
	if bestDist >= 0 && bestDist <= closeEnough(name) {
		return best
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b, in runes. Keys
// are short, so the two-row version is plenty.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

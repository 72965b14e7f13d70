package shell

import (
	"regexp"
	"strings"
	"testing"
)

// TestDriverCallsNoUnqualifiedCommand: outside POSIX mode bash finds a
// function before a builtin, a special one (":", "continue") too, so
// every command word of the driver is "builtin", a keyword, one of
// olly's readonly __olly_ functions, or one of the few it runs in POSIX
// mode (exec, exit, unset: special builtins, found before a function).
// The loop called ":" and __olly_clearv "continue" unqualified: a
// function of that name in a state ran in their place.
func TestDriverCallsNoUnqualifiedCommand(t *testing.T) {
	allowed := map[string]bool{
		"builtin": true, "[[": true, "case": true, "esac": true, "for": true, "done": true, "fi": true,
		"{": true, "}": true, "}'": true, "exec": true, "exit": true, "unset": true,
	}
	split := regexp.MustCompile(`;|&&|\|\||\|(?:[^|])|\{ |\bthen\b|\bdo\b|\belse\b|\bwhile\b|\bif\b|\belif\b|^!|\s!\s|\(\)`)
	assign := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?=`)
	word := regexp.MustCompile(`^(__olly_[a-z]+|[A-Za-z_:.][A-Za-z0-9_:.-]*)$`)
	seen := 0
	for _, line := range strings.Split(driverSource, "\n") {
		l := strings.TrimLeft(strings.TrimSpace(line), "'")
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		for _, piece := range split.Split(l, -1) {
			toks := strings.Fields(piece)
			for len(toks) > 0 && assign.MatchString(toks[0]) {
				toks = toks[1:]
			}
			if len(toks) == 0 || !word.MatchString(toks[0]) || strings.HasSuffix(toks[0], ")") {
				continue // a case pattern, an expansion, an argument list
			}
			seen++
			w := toks[0]
			if !allowed[w] && !strings.HasPrefix(w, "__olly_") {
				t.Errorf("the driver calls %q without builtin: %s", w, strings.TrimSpace(line))
			}
		}
	}
	if seen < 100 {
		t.Fatalf("only %d command words found: the scan no longer matches the driver", seen)
	}
}

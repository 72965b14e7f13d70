package shell

import (
	"path"
	"strings"
)

// secretWords mark variables whose values are secrets: a command never
// sees them unless shell.env.keep names them (Codex's environment policy
// does the same).
var secretWords = []string{"KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL"}

// EnvPolicy decides which of olly's variables commands inherit.
type EnvPolicy struct {
	// Keep names variables (or glob patterns, "AWS_*") kept even though
	// they look secret (shell.env.keep).
	Keep []string
	// Drop names more variables (or patterns) never passed on
	// (shell.env.drop). Drop wins over Keep.
	Drop []string
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// Dropped reports whether name is kept from commands: olly's own OLLY_*
// settings (the API key among them), names containing KEY, SECRET, TOKEN,
// PASSWORD or CREDENTIAL, and Drop; Keep rescues the first two kinds.
func (p EnvPolicy) Dropped(name string) bool {
	if matchAny(p.Drop, name) {
		return true
	}
	if matchAny(p.Keep, name) {
		return false
	}
	upper := strings.ToUpper(name)
	if strings.HasPrefix(upper, "OLLY_") {
		return true
	}
	for _, w := range secretWords {
		if strings.Contains(upper, w) {
			return true
		}
	}
	return false
}

// filter returns env without the dropped variables.
func (p EnvPolicy) filter(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !p.Dropped(envName(kv)) {
			out = append(out, kv)
		}
	}
	return out
}

package safety

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/olly-agent/olly/internal/config"
)

// EvaluateFile decides what happens when the agent edits rel, a
// workspace-relative path (workspace.Path.InRoot), under rules: the action
// of the last rule whose doublestar pattern matches wins (seed 003, "File
// Sensitivity"), and matched points at that rule in rules (nil when none
// matched). Patterns are matched case-sensitively; see EvaluateFileFold.
//
// A path no rule matches asks: the defaults begin with "**/*: auto", so
// this only happens with a custom list that has no catch-all, and an edit
// nobody decided about is safer shown than applied. Rules are applied
// failing closed, so a broken configuration can only make olly ask more:
// an invalid pattern counts as matching when its action is ask and as not
// matching when it is auto, and an action other than "auto" asks.
// ValidateFileRules reports both problems.
func EvaluateFile(rel string, rules []config.FileRule) (action config.FileAction, matched *config.FileRule) {
	return evaluateFile(normalizeFileRel(rel), rules, false)
}

// EvaluateFileFold is EvaluateFile for a file on a case-insensitive file
// system (workspace.Path.CaseInsensitive): there ".ENV" is the same file as
// ".env", so patterns match without case.
func EvaluateFileFold(rel string, rules []config.FileRule) (action config.FileAction, matched *config.FileRule) {
	return evaluateFile(strings.ToLower(normalizeFileRel(rel)), rules, true)
}

func evaluateFile(rel string, rules []config.FileRule, fold bool) (config.FileAction, *config.FileRule) {
	for i := len(rules) - 1; i >= 0; i-- {
		r := &rules[i]
		act := fileActionOf(r.Action)
		pattern := strings.TrimPrefix(r.Pattern, "./")
		if fold {
			pattern = strings.ToLower(pattern)
		}
		if filePatternProblem(pattern) != "" {
			if act == config.FileAsk {
				return config.FileAsk, r
			}
			continue
		}
		if doublestar.MatchUnvalidated(pattern, rel) {
			return act, r
		}
	}
	return config.FileAsk, nil
}

// fileActionOf reads an action failing closed: anything but "auto" asks.
func fileActionOf(a config.FileAction) config.FileAction {
	if a == config.FileAuto {
		return config.FileAuto
	}
	return config.FileAsk
}

// normalizeFileRel puts a path in the form patterns are written against:
// forward slashes, clean, no leading "./" or "/".
func normalizeFileRel(rel string) string {
	rel = strings.ReplaceAll(rel, `\`, "/")
	rel = path.Clean(rel)
	rel = strings.TrimLeft(rel, "/")
	if rel == "" {
		return "."
	}
	return rel
}

// ValidateFileRules reports every rule with an empty or malformed pattern
// or an action other than "ask" or "auto", one error per rule (joined),
// each naming the rule by position and pattern and saying how to fix it.
// The config layer and `olly doctor` call it; EvaluateFile never fails on
// such rules but treats them as described there.
func ValidateFileRules(rules []config.FileRule) error {
	var errs []error
	for i, r := range rules {
		where := fmt.Sprintf("sensitive-file rule %d (pattern %q)", i+1, r.Pattern)
		if p := filePatternProblem(strings.TrimPrefix(r.Pattern, "./")); p != "" {
			errs = append(errs, fmt.Errorf("%s: %s; until fixed it counts as matching every file when its action is ask and no file when auto", where, p))
		}
		if r.Action != config.FileAsk && r.Action != config.FileAuto {
			errs = append(errs, fmt.Errorf("%s: action %q is neither %q nor %q; edits it matches will ask", where, r.Action, config.FileAsk, config.FileAuto))
		}
	}
	return errors.Join(errs...)
}

// LayerFileRules returns the rules in force for a session: the global
// rules followed by the session's own, so that under last-match-wins a
// session rule beats a global one for the same file (seed 003: session
// patterns take precedence). Neither input is modified.
func LayerFileRules(global, session []config.FileRule) []config.FileRule {
	out := make([]config.FileRule, 0, len(global)+len(session))
	return append(append(out, global...), session...)
}

// filePatternProblem says what is wrong with a pattern, or "" when it is
// usable. Evaluation and validation share it, so a rule reported as broken
// is exactly a rule evaluated failing closed.
func filePatternProblem(pattern string) string {
	switch {
	case strings.TrimSpace(pattern) == "":
		return "the pattern is empty; write a glob such as **/.env*"
	case !doublestar.ValidatePattern(pattern):
		return `not a valid glob (check for an unclosed [ or { or a trailing \)`
	}
	return ""
}

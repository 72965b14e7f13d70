package safety

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// simpleParam reports whether p is $name or ${name} with no operator.
func simpleParam(p *syntax.ParamExp) bool {
	return p.Param != nil && p.Flags == nil && !p.Excl && !p.Length && !p.Width && !p.IsSet &&
		p.NestedParam == nil && p.Index == nil && len(p.Modifiers) == 0 && p.Slice == nil &&
		p.Repl == nil && p.Names == 0 && p.Exp == nil
}

// defaultParam reports whether p is ${name:-word}, ${name-word},
// ${name:=word} or ${name=word} with no other operator.
func defaultParam(p *syntax.ParamExp) bool {
	if p.Exp == nil {
		return false
	}
	switch p.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
	default:
		return false
	}
	q := *p
	q.Exp = nil
	return simpleParam(&q)
}

// unescapeDouble removes the backslashes that quote characters inside
// double quotes (\$ \` \" \\); any other backslash stays.
func unescapeDouble(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiC decodes a $'…' string (\n, \x72, \0162, \u…), as bash does.
func ansiC(s string) string {
	out, _, err := format(s, nil)
	if err != nil {
		return s
	}
	out, _, _ = strings.Cut(out, "\x00")
	return out
}

// format runs printf-style formatting (also used for $'…'). Each call gets
// its own Config: with nil, mvdan.cc/sh/v3/expand prepares a shared
// package-level default in place, a data race under concurrent Analyze.
func format(f string, args []string) (string, int, error) {
	return expand.Format(&expand.Config{}, f, args)
}

// validName reports whether s is a shell name (or, with user, a login name).
func validName(s string, user bool) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		case user && (r == '-' || r == '.' || r >= '0' && r <= '9'):
		default:
			return false
		}
	}
	return true
}

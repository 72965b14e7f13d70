package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSensitivePatternForms: the three accepted forms give the same ordered
// rules with explicit actions; the seed's booleans are converted with their
// inverted meaning (true = auto, false = ask — seed pitfall #6).
func TestSensitivePatternForms(t *testing.T) {
	want := []FileRule{
		{Pattern: "**/*", Action: FileAuto},
		{Pattern: "**/.env*", Action: FileAsk},
		{Pattern: "src/**/*.go", Action: FileAuto},
		{Pattern: "**/secrets/**", Action: FileAsk},
	}
	tests := []struct{ name, file string }{
		{"mapping", `agent:
  sensitiveFilePatterns:
    "**/*": auto
    "**/.env*": ask
    src/**/*.go: auto
    "**/secrets/**": ask
`},
		{"list", `agent:
  sensitiveFilePatterns:
    - {pattern: "**/*", action: auto}
    - pattern: "**/.env*"
      action: ask
    - {pattern: src/**/*.go, action: auto}
    - {pattern: "**/secrets/**", action: ask}
`},
		{"seed booleans", `agent.sensitiveFilePatterns: {"**/*": true, "**/.env*": false, "src/**/*.go": true, "**/secrets/**": false}
`},
		{"booleans in the list form", `agent.sensitiveFilePatterns:
  - {pattern: "**/*", action: true}
  - {pattern: "**/.env*", action: false}
  - {pattern: src/**/*.go, action: auto}
  - {pattern: "**/secrets/**", action: ask}
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			writeFile(t, globalPath(home), tt.file)
			c := mustLoad(t, LoadOptions{Home: home})
			if diff := cmp.Diff(want, c.Agent.SensitiveFilePatterns); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSensitivePatternOrderIsKept(t *testing.T) {
	// Reverse alphabetical, so an implementation that sorts keys fails.
	home := t.TempDir()
	writeFile(t, globalPath(home), "agent.sensitiveFilePatterns:\n  z/**: ask\n  m/**: auto\n  a/**: ask\n")
	c := mustLoad(t, LoadOptions{Home: home})
	var got []string
	for _, r := range c.Agent.SensitiveFilePatterns {
		got = append(got, r.Pattern)
	}
	if strings.Join(got, " ") != "z/** m/** a/**" {
		t.Fatalf("order = %v", got)
	}
}

func TestSensitivePatternErrors(t *testing.T) {
	tests := []struct {
		name, file string
		kind       ErrorKind
		want       string // after "<path>:"
	}{
		{"scalar", "agent.sensitiveFilePatterns: \"**/*\"\n", ErrType,
			`1: agent.sensitiveFilePatterns: expected file rules: a mapping of glob to ask|auto (or true|false), or a list of {pattern, action}, got the string "**/*"`},
		{"unknown action", "agent.sensitiveFilePatterns:\n  \"**/*\": auto\n  \"**/.env\": maybe\n", ErrEnum,
			`3: agent.sensitiveFilePatterns: pattern "**/.env": action must be ask or auto (or the seed's true = auto, false = ask), got the string "maybe"`},
		{"quoted boolean", "agent.sensitiveFilePatterns:\n  \"**/*\": \"true\"\n", ErrEnum,
			`2: agent.sensitiveFilePatterns: pattern "**/*": action must be ask or auto (or the seed's true = auto, false = ask), got the string "true"`},
		{"null action", "agent.sensitiveFilePatterns:\n  \"**/*\":\n", ErrEnum,
			`2: agent.sensitiveFilePatterns: pattern "**/*": action must be ask or auto`},
		{"bad glob", "agent.sensitiveFilePatterns:\n  \"src/[a\": ask\n", ErrInvalid,
			`2: agent.sensitiveFilePatterns: pattern "src/[a" is not a valid glob`},
		{"empty glob", "agent.sensitiveFilePatterns:\n  \"\": ask\n", ErrInvalid,
			`2: agent.sensitiveFilePatterns: pattern "" is not a valid glob`},
		{"duplicate pattern", "agent.sensitiveFilePatterns:\n  \"**/*\": ask\n  \"**/*\": auto\n", ErrDuplicate,
			`3: agent.sensitiveFilePatterns: pattern "**/*" is listed twice (first at line 2); keep one`},
		{"list item not a mapping", "agent.sensitiveFilePatterns:\n  - \"**/*\"\n", ErrType,
			`2: agent.sensitiveFilePatterns: item 1: expected {pattern: GLOB, action: ask|auto}, got the string "**/*"`},
		{"list item missing action", "agent.sensitiveFilePatterns:\n  - pattern: \"**/*\"\n", ErrType,
			`2: agent.sensitiveFilePatterns: item 1: needs both pattern and action`},
		{"list item extra field", "agent.sensitiveFilePatterns:\n  - {pattern: a, action: ask, why: x}\n", ErrType,
			`2: agent.sensitiveFilePatterns: item 1: unknown field "why": each item has only pattern and action`},
		{"list item pattern not a string", "agent.sensitiveFilePatterns:\n  - {pattern: [a], action: ask}\n", ErrType,
			`2: agent.sensitiveFilePatterns: item 1: pattern must be a string, got a list`},
		{"mapping key not a string", "agent.sensitiveFilePatterns:\n  ? [a]\n  : ask\n", ErrType,
			`2: agent.sensitiveFilePatterns: a pattern must be a string such as "**/*.env", got a list`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			writeFile(t, globalPath(home), tt.file)
			_, err := Load(LoadOptions{Home: home})
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want an *Error", err)
			}
			if ce.Kind != tt.kind {
				t.Errorf("kind = %d, want %d", ce.Kind, tt.kind)
			}
			if got, want := ce.Error(), globalPath(home)+":"+tt.want; !strings.HasPrefix(got, want) {
				t.Errorf("error =\n  %s\nwant\n  %s", got, want)
			}
		})
	}
}

// TestRulesTextRoundTrip: what `olly config get` prints, `olly config set`
// reads back to the same rules — including duplicates, which need the list
// form.
func TestRulesTextRoundTrip(t *testing.T) {
	e := keys().byKey["agent.sensitiveFilePatterns"]
	for _, rules := range [][]FileRule{
		DefaultFileRules(),
		{{Pattern: "a", Action: FileAsk}, {Pattern: "a", Action: FileAuto}},
		{},
	} {
		text := e.kind.text(rules)
		got, p := decodeText(e, text)
		if p != nil {
			t.Fatalf("decode %q: %s", text, p.msg)
		}
		if diff := cmp.Diff(rules, got); diff != "" {
			t.Errorf("round trip of %q (-want +got):\n%s", text, diff)
		}
	}
}

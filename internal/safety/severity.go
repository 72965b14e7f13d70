// Package safety decides how risky a shell command is before olly runs it,
// and (in files.go) how sensitive a file edit is.
//
// Commands are parsed as bash with mvdan.cc/sh and every simple command the
// shell would run is analysed: the parts of pipelines and lists, subshells,
// command and process substitutions, loop and branch bodies, function bodies,
// and the commands hidden inside wrappers such as sudo, env, xargs, find
// -exec, bash -c and eval. The seed matched regular expressions against the
// raw string, which quoting ("r"m), escaping (\rm) or a wrapper defeated;
// see docs/safety.md for the tiers, the rules and the known limits.
package safety

import (
	"fmt"
	"strings"
)

// Severity ranks how much damage a command can do. The zero value is None.
// Severities are ordered: None < Medium < High < Critical.
type Severity int

// The severity tiers, from the seed's command-safety table.
const (
	// None is read-only or ordinary build and test work.
	None Severity = iota
	// Medium changes the machine in ways that are usually wanted but worth
	// seeing: installs, network fetches, container runs, plain pushes.
	Medium
	// High can destroy work or change the system: forced or recursive
	// deletion, writes outside the workspace, privilege escalation.
	High
	// Critical can destroy the machine or the whole workspace, or runs code
	// fetched from the network. Critical always asks, even with auto-approve.
	Critical
)

var severityNames = [...]string{"none", "medium", "high", "critical"}

// String returns the lower-case tier name used on the wire and in settings.
func (s Severity) String() string {
	if s >= None && int(s) < len(severityNames) {
		return severityNames[s]
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// ParseSeverity reads a tier name as written by String (case-insensitive).
func ParseSeverity(name string) (Severity, error) {
	for i, n := range severityNames {
		if strings.EqualFold(name, n) {
			return Severity(i), nil
		}
	}
	return None, fmt.Errorf("unknown severity %q: use one of none, medium, high, critical", name)
}

// MarshalText encodes the severity as its name, so JSON and YAML carry
// "high" rather than a number whose meaning depends on this file's order.
func (s Severity) MarshalText() ([]byte, error) {
	if s < None || int(s) >= len(severityNames) {
		return nil, fmt.Errorf("marshal severity: invalid value %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText decodes a name written by MarshalText.
func (s *Severity) UnmarshalText(text []byte) error {
	v, err := ParseSeverity(string(text))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Finding is one reason a command is risky.
type Finding struct {
	// Severity is the tier this finding alone puts the command in.
	Severity Severity `json:"severity"`
	// Rule is a stable identifier such as "delete-root"; docs/safety.md
	// lists them all. Settings and tests refer to rules by this id.
	Rule string `json:"rule"`
	// Reason is one sentence for the approval card.
	Reason string `json:"reason"`
	// Words are the offending words as written in the command.
	Words []string `json:"words,omitempty"`
	// Command is the simple command the finding is about, as written (for
	// a nested script, as written inside it).
	Command string `json:"command"`
}

// Verdict is the result of analysing one command line.
type Verdict struct {
	// Severity is the highest severity among Findings (None when empty).
	Severity Severity `json:"severity"`
	// Findings are ordered from most to least severe, then by position.
	Findings []Finding `json:"findings,omitempty"`
}

// Reason returns the reason of the most severe finding, or "" when there is
// none; it is the one line an approval card shows under the command.
func (v Verdict) Reason() string {
	if len(v.Findings) == 0 {
		return ""
	}
	return v.Findings[0].Reason
}

// Has reports whether some finding carries the given rule id.
func (v Verdict) Has(rule string) bool {
	for _, f := range v.Findings {
		if f.Rule == rule {
			return true
		}
	}
	return false
}

// Options describe where the command will run. All paths are absolute.
type Options struct {
	// Roots are the workspace roots. Writes inside them are ordinary work.
	Roots []string
	// Cwd is the directory the command starts in; relative paths resolve
	// against it. Empty means the first root.
	Cwd string
	// Home is the user's home directory, for ~ and $HOME. Empty means
	// unknown: ~ and $HOME still count as a home directory, wherever it is.
	Home string
	// Allowed are directories outside the roots that the person allowed
	// for this session; writes inside them count as inside the workspace.
	Allowed []string
	// TempDirs are the OS temporary directories. Writes under them are
	// medium rather than high. Empty means /tmp and /var/tmp; callers pass
	// os.TempDir() here so the analysis itself reads no environment.
	TempDirs []string
}

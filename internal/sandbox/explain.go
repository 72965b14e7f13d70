package sandbox

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Refusal is an access the sandbox probably refused.
type Refusal struct {
	// Access is "write", "read" or "network".
	Access string
	// Path is the file refused; "" for network.
	Path string
}

func (r Refusal) String() string {
	switch r.Access {
	case "network":
		return "a network connection (the sandbox allows no TCP; sandbox.network turns it on)"
	case "read":
		return "reading " + r.Path + " (a protected path)"
	}
	return "writing " + r.Path + " (outside the places this policy may change)"
}

// deniedLine matches the messages a refused access produces: EACCES
// ("Permission denied") from Landlock, EPERM from Seatbelt ("Operation not
// permitted"), and the read-only file system some tools report.
var deniedLine = regexp.MustCompile(`(?i)permission denied|operation not permitted|read-only file system|EACCES|EPERM`)

// netLine matches a refused connection or bind.
var netLine = regexp.MustCompile(`(?i)connect|bind|socket|network|resolve host|urlopen|dial tcp`)

// pathToken matches absolute paths, home-relative paths and quoted
// relative paths in an error message.
var pathToken = regexp.MustCompile("(?:^|[\\s'\"`‘(=:])((?:~|\\.{1,2})?/[^\\s'\"`’():,]*|[A-Za-z0-9_.][^\\s'\"`’():,]*/[^\\s'\"`’():,]*)")

// Explain reads a command's output for accesses the sandbox refused under
// spec: a write outside the writable places, a read of a protected path, a
// refused connection. cwd and home resolve relative paths. It is a
// reading of error messages, so it reports only what the messages name;
// at most 5 refusals.
func Explain(spec Spec, cwd, home, output string) []Refusal {
	if spec.Policy == Unsandboxed || spec.Policy == "" {
		return nil
	}
	var out []Refusal
	seen := map[Refusal]bool{}
	addRefusal := func(r Refusal) {
		if !seen[r] && len(out) < 5 {
			seen[r] = true
			out = append(out, r)
		}
	}
	deny := realPaths(spec.DenyRead)
	for line := range strings.Lines(output) {
		if !deniedLine.MatchString(line) {
			continue
		}
		found := false
		for _, m := range pathToken.FindAllStringSubmatch(line, -1) {
			p := absPath(strings.TrimRight(m[1], ".;"), cwd, home)
			if p == "" {
				continue
			}
			if slices.ContainsFunc(deny, func(d string) bool { return under(p, d) }) {
				addRefusal(Refusal{Access: "read", Path: p})
				found = true
				continue
			}
			if !spec.mayWrite(p) {
				addRefusal(Refusal{Access: "write", Path: p})
				found = true
			}
		}
		if !found && !spec.network() && netLine.MatchString(line) {
			addRefusal(Refusal{Access: "network"})
		}
	}
	return out
}

// mayWrite reports whether the policy lets a command change p.
func (s Spec) mayWrite(p string) bool {
	for _, w := range append(slices.Clone(s.writable()), s.own()...) {
		for _, q := range []string{filepath.Clean(w), realOrSelf(w)} {
			if under(p, q) || under(realOrSelf(p), q) {
				return true
			}
		}
	}
	return slices.Contains([]string{"/dev/null", "/dev/zero", "/dev/full"}, p) || strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/")
}

func absPath(p, cwd, home string) string {
	switch {
	case p == "":
		return ""
	case strings.HasPrefix(p, "~/"):
		if home == "" {
			return ""
		}
		p = filepath.Join(home, p[2:])
	case !filepath.IsAbs(p):
		if cwd == "" {
			return ""
		}
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// Note is the text appended to the result of a command the sandbox
// refused something: what, under which policy, and how to ask the person
// to run it outside the sandbox.
func Note(policy Policy, refused []Refusal) string {
	if len(refused) == 0 {
		return ""
	}
	what := make([]string, len(refused))
	for i, r := range refused {
		what[i] = r.String()
	}
	return fmt.Sprintf("the %s sandbox refused %s. If the task really needs this, run the command again with run_terminal_command's escalate argument set to the reason: that asks the person to let it run outside the sandbox",
		policy, strings.Join(what, "; "))
}

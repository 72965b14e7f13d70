package sandbox

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// seatbeltBase is the part of every macOS profile that does not depend on
// the policy: deny by default, let the command run programs and fork,
// signal only its own sandbox, and reach the system services programs
// need to start (after Codex's base policy).
const seatbeltBase = `(version 1)
(deny default)
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow sysctl-read)
(allow user-preference-read)
(allow ipc-posix-sem)
(allow ipc-posix-shm-read*)
(allow pseudo-tty)
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.system.logger")
  (global-name "com.apple.system.notification_center")
  (global-name "com.apple.logd")
  (global-name "com.apple.trustd.agent")
  (global-name "com.apple.SecurityServer"))
(allow file-ioctl (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper"))
(allow file-write-data
  (require-all (vnode-type CHARACTER-DEVICE)
    (require-any (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper"))))
`

// SeatbeltProfile returns the sandbox-exec profile for spec: reading
// everywhere, then the protected paths denied (later rules win in
// Seatbelt), then writing in the writable places but not their .git, and
// olly's own folders, then network if allowed. Paths are used as given and, when different,
// with symbolic links resolved (/tmp is /private/tmp on macOS).
func SeatbeltProfile(spec Spec) string {
	var b strings.Builder
	b.WriteString(seatbeltBase)
	fmt.Fprintf(&b, "; olly policy: %s\n", spec.Policy)
	b.WriteString("(allow file-read*)\n")
	if len(spec.DenyRead) > 0 {
		b.WriteString("(deny file-read* file-write*")
		for _, p := range withReal(spec.DenyRead) {
			fmt.Fprintf(&b, "\n  (subpath %s)", sbQuote(p))
		}
		b.WriteString(")\n")
	}
	// Seatbelt applies the last matching rule, so the deny is repeated
	// after the writable places (a protected path inside the workspace
	// stays protected), and olly's own folders come last (they are
	// writable even inside a protected folder).
	if writable := spec.writable(); len(writable) > 0 {
		b.WriteString("(allow file-read* file-write*")
		for _, p := range withReal(spec.unswapped(writable)) {
			fmt.Fprintf(&b, "\n  (subpath %s)", sbQuote(p))
		}
		b.WriteString(")\n")
		if len(spec.DenyRead) > 0 {
			b.WriteString("(deny file-read* file-write*")
			for _, p := range withReal(spec.DenyRead) {
				fmt.Fprintf(&b, "\n  (subpath %s)", sbQuote(p))
			}
			b.WriteString(")\n")
		}
		// A .git at any depth in a writable place (present or not: a
		// new one cannot be planted) and the other read-only paths stay
		// read-only: git runs a repository's hooks and configuration
		// later, outside the sandbox.
		b.WriteString("(deny file-write*")
		for _, f := range sbReadOnlyFilters(spec) {
			fmt.Fprintf(&b, "\n  %s", f)
		}
		b.WriteString(")\n")
	}
	if own := spec.own(); len(own) > 0 {
		b.WriteString("(allow file-read* file-write*")
		for _, p := range withReal(spec.unswapped(own)) {
			fmt.Fprintf(&b, "\n  (subpath %s)", sbQuote(p))
		}
		b.WriteString(")\n")
	}
	if spec.network() {
		b.WriteString("(allow network-outbound)\n(allow network-inbound)\n(allow network-bind)\n(allow system-socket)\n")
	}
	return b.String()
}

func withReal(paths []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range paths {
		p = filepath.Clean(p)
		for _, q := range []string{p, realOrSelf(p)} {
			if !seen[q] {
				seen[q] = true
				out = append(out, q)
			}
		}
	}
	return out
}

func realOrSelf(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// sbReadOnlyFilters returns the deny filters of spec's read-only paths:
// for each writable place but the caches, .git at any depth below it
// (sbAnyGit), then
// the read-only paths those do not cover (Spec.ReadOnly, a submodule's
// .git outside the places).
func sbReadOnlyFilters(spec Spec) []string {
	// The build caches keep their top-level .git only (below, from
	// readOnly), as on Linux where they are not searched: tools clone
	// into them (cargo's git checkouts, pre-commit's ~/.cache).
	places := withReal(spec.searchPlaces(withReal(spec.writable())))
	var out []string
	for _, w := range places {
		out = append(out, sbAnyGit(w))
	}
	for _, p := range withReal(spec.readOnly(false)) {
		covered := strings.EqualFold(filepath.Base(p), GitDir) &&
			slices.ContainsFunc(places, func(w string) bool { return under(filepath.Dir(p), w) })
		if !covered {
			out = append(out, sbReadOnly(p))
		}
	}
	return out
}

// sbAnyGit is the Seatbelt filter for a .git entry at any depth below the
// writable place w, in any letter case: a nested clone, a linked
// worktree's pointer file, a submodule not checked out yet, or one a
// command would plant (Seatbelt matches paths, so what does not exist
// yet is covered too).
func sbAnyGit(w string) string {
	w = strings.TrimSuffix(w, "/")
	return "(regex " + sbQuote("^"+regexp.QuoteMeta(w)+`/(.*/)?\.[Gg][Ii][Tt](/|$)`) + ")"
}

// sbReadOnly is the Seatbelt filter for the read-only path p: a .git
// matched whatever its case ("<dir>/.GIT" is the same entry on a
// case-insensitive APFS volume, and a new one must not be planted under
// another case), the folder holding it quoted for the regex; any other
// path as a subpath.
func sbReadOnly(p string) string {
	if !strings.EqualFold(filepath.Base(p), GitDir) {
		return "(subpath " + sbQuote(p) + ")"
	}
	dir := strings.TrimSuffix(filepath.Dir(p), "/")
	return "(regex " + sbQuote("^"+regexp.QuoteMeta(dir)+`/\.[Gg][Ii][Tt](/|$)`) + ")"
}

// sbQuote quotes s as a Seatbelt (Scheme) string literal.
func sbQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

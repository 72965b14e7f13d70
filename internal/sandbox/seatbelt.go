package sandbox

import (
	"fmt"
	"path/filepath"
	"regexp"
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
		for _, p := range withReal(writable) {
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
		// Each writable place's .git (present or not: a new one cannot
		// be planted) stays read-only: git runs its hooks and
		// configuration later, outside the sandbox.
		if ro := spec.readOnly(false); len(ro) > 0 {
			b.WriteString("(deny file-write*")
			for _, p := range withReal(ro) {
				fmt.Fprintf(&b, "\n  %s", sbReadOnly(p))
			}
			b.WriteString(")\n")
		}
	}
	if own := spec.own(); len(own) > 0 {
		b.WriteString("(allow file-read* file-write*")
		for _, p := range withReal(own) {
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

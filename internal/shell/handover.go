package shell

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// The state a read-only command left reaches the workspace-write bash as
// data only. A read-only command runs without asking and can write its own
// bash's folder, so the state file there can hold any bash code; sourced
// by the workspace-write bash it would run with that bash's rights, and a
// function or alias planted there (git, builtin) would replace what a
// person approved later. So olly parses that state in Go (declparse.go),
// keeps the variables it may carry (keepVar) and writes them again in its
// own quoting, which the workspace-write bash sources with its functions
// and aliases left as they are (driver.bash, __olly_clearv). Functions
// and aliases never cross that way; the workspace-write bash keeps its
// own, and a new one takes them from the newest state a bash that was not
// read-only saved (STATE_DIR/wstate).

// Variables that never cross from the read-only bash to the
// workspace-write one. (A name the workspace-write bash exports never
// takes a read-only command's value either: dataState. These lists are
// for what bash itself acts on, and a second wall.) The workspace-write bash keeps its own value of
// each (the driver's clear leaves them alone too: driverDenyList).
// Loaders and start-up files, bash's own settings and what programs run
// as commands or load code from; HOME, PATH and SHELL choose which
// programs and configuration a later approved command runs.
var (
	handDenyExact = []string{
		// (a name a prefix or suffix below catches, such as PATH, CDPATH,
		// PROMPT_COMMAND or SUDO_ASKPASS, is not repeated here)
		// bash
		"BASH_ENV", "ENV", "PS0", "PS1", "PS2", "PS3", "PS4",
		"IFS", "GLOBIGNORE", "GLOBSORT", "EXECIGNORE", "FIGNORE", "HOSTFILE", "INPUTRC", "TMOUT",
		"FUNCNEST", "POSIXLY_CORRECT", "HISTFILE", "HISTCONTROL", "HISTIGNORE", "HISTSIZE", "HISTFILESIZE",
		"HISTTIMEFORMAT", "MAIL", "MAILCHECK", "TIMEFORMAT", "OPTERR",
		"HOME", "SHELL", "PROMPT_DIRTRIM", "IGNOREEOF", "auto_resume", "histchars",
		// loaders and programs' code hooks
		"GLIBC_TUNABLES", "HOSTALIASES", "RES_OPTIONS", "LOCALDOMAIN",
		"PAGER", "MANPAGER", "EDITOR", "VISUAL", "BROWSER", "TERMINFO", "TERMINFO_DIRS",
		"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CC", "CXX", "CPP", "LD",
		"AR", "AS", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "MAKEFLAGS", "MAKEFILES", "MFLAGS",
		"GOFLAGS", "GOTOOLCHAIN", "GOENV", "GOROOT", "GOBIN", "GOPROXY", "GOSUMDB", "GONOSUMDB",
		"GONOSUMCHECK", "GOPRIVATE", "GONOPROXY", "GOINSECURE", "GOEXPERIMENT", "GOCACHE", "GOMODCACHE",
		"RUSTC", "RUSTFLAGS", "RUSTDOCFLAGS",
		"OPENSSL_CONF", "OPENSSL_ENGINES", "GNUPGHOME", "KRB5_CONFIG", "CURL_HOME", "WGETRC", "ZDOTDIR",
		"FCEDIT", "TEXTDOMAIN", "TEXTDOMAINDIR", "TAR_OPTIONS", "GNUMAKEFLAGS",
		"GCC_EXEC_PREFIX", "VIMINIT", "EXINIT", "MYVIMRC",
		"PHPRC", "PHP_INI_SCAN_DIR", "JAVA_HOME", "GRADLE_USER_HOME",
		"RSYNC_CONNECT_PROG",
	}
	handDenyPrefix = []string{
		"LD_", "DYLD_", "GIT_", "PYTHON", "PERL", "RUBY", "GEM_", "BUNDLE_", "NODE_", "NPM_CONFIG_",
		"npm_config_", "YARN_", "XDG_", "SSH_", "LESS", "CGO_", "CARGO_", "RUSTUP_", "PIP_", "MALLOC_",
		"QT_", "GTK_", "DOCKER_", "KUBE", "LUA_INIT", "DOTNET_", "AWS_",
		"DBUS_", "CCACHE_", "ERL_",
	}
	// handDenySuffix catches the names programs give the commands they
	// run and the search paths they load code from, beyond the lists
	// above (GIT_SSH_COMMAND, SUDO_ASKPASS, PKG_CONFIG_PATH…).
	handDenySuffix = []string{
		"PATH", "_COMMAND", "_CMD", "_ASKPASS", "_EDITOR", "_PAGER", "_WRAPPER", "_SHELL", "_PRELOAD",
		"_HOOK", "_HOOKS", "_OPTS", "_RSH",
	}
	// handSilentPrefix: olly's own variables, and bash's, most of them
	// changing by themselves (BASH_ENV, in handDenyExact, is told).
	handSilentPrefix = []string{"__olly_", "BASH_"}
	// handSilent are bash's own variables that change by themselves (or
	// that olly sets before every command): dropped without a word.
	handSilent = []string{
		"BASH", "BASHPID", "COLUMNS", "LINES", "DIRSTACK", "EPOCHREALTIME", "EPOCHSECONDS", "EUID", "FUNCNAME",
		"GROUPS", "HISTCMD", "HOSTNAME", "HOSTTYPE", "LINENO", "MACHTYPE", "OSTYPE", "PIPESTATUS", "PPID",
		"PWD", "OLDPWD", "RANDOM", "SECONDS", "SHLVL", "SRANDOM", "UID", "_", "COPROC", "COMPREPLY", "MAPFILE", "COMP_WORDBREAKS",
		"SHELLOPTS", "BASHOPTS", // the options, which never cross (reset after every command)
		// bash's own integer (getopts' place): a bash keeps it, and its
		// attribute, through the clear, so a value assigned to it would be
		// evaluated (carriedAttrs cannot drop an attribute the taking bash
		// gives the name itself).
		"OPTIND",
	}
)

// driverDenyList is the bash array of the names (and name* patterns) the
// driver's clear before a data-only hand-over leaves in place: the same
// names keepVar never carries, so the workspace-write bash keeps its own.
func driverDenyList() string {
	var pats []string
	pats = append(pats, handDenyExact...)
	pats = append(pats, handSilent...)
	pats = append(pats, forcedNames()...)
	for _, n := range slices.Concat(handSilentPrefix, handDenyPrefix) {
		pats = append(pats, n+"*")
	}
	for _, n := range handDenySuffix {
		pats = append(pats, "*"+n)
	}
	return strings.Join(pats, "|")
}

// handNames classes the names handDeny looks up one by one: true for a
// silent drop, false for a told one.
var handNames = func() map[string]bool {
	m := make(map[string]bool)
	for _, n := range handDenyExact {
		m[n] = false
	}
	for _, n := range slices.Concat(handSilent, forcedNames()) {
		m[n] = true
	}
	return m
}()

// handDeny reports whether name never crosses; silent: without a word.
func handDeny(name string) (deny, silent bool) {
	if silent, ok := handNames[name]; ok {
		return true, silent
	}
	for _, p := range handSilentPrefix {
		if strings.HasPrefix(name, p) {
			return true, true
		}
	}
	for _, p := range handDenyPrefix {
		if strings.HasPrefix(name, p) {
			return true, false
		}
	}
	for _, p := range handDenySuffix {
		if strings.HasSuffix(name, p) {
			return true, false
		}
	}
	return false, false
}

// keepVar decides whether v, from a read-only bash's state, reaches the
// workspace-write bash; deny: its name never crosses (handDeny); silent:
// dropping it needs no note. places are
// olly's shell-state folder, which holds the one folder a read-only
// command may write (its bash's own), and the session's TMPDIR: an
// exported variable that names one (or /proc, through which a read-only
// job's folders can be reached) could hand a program a file planted
// there, and does not cross. (The sandbox keeps the state folder from
// every command's reads as well: this is a second wall.) A locale
// variable crosses only with a locale that cannot change how bash reads
// the approved command's bytes (safeLocale). What crosses keeps only the
// attributes a, A and x (carriedAttrs; x is then dropped: dataState).
func keepVar(v *shVar, places []string) (keep, deny, silent bool) {
	if deny, silent := handDeny(v.name); deny {
		return false, true, silent
	}
	if !v.sane() || isLocaleName(v.name) && !v.safeLocale() {
		return false, false, false
	}
	if strings.Contains(v.attrs, "x") && v.names(places) {
		return false, false, false
	}
	return true, false, false
}

// carriedAttrs are the attributes of attrs a variable keeps when it
// crosses: a and A (its shape) and x. Integer, readonly, case-converting,
// nameref, trace and any other attribute would change what a later
// assignment in the approved command does (an integer one evaluates the
// value: a subscript there can run a command; a readonly one makes the
// assignment fail and the command go on), so they are dropped and the
// values cross as plain strings. (x is then dropped: a name the
// workspace-write bash exports does not cross at all: dataState.)
func carriedAttrs(attrs string) string {
	if strings.Trim(attrs, "aAx") == "" {
		return attrs
	}
	var b strings.Builder
	for _, c := range []byte(attrs) {
		if c == 'a' || c == 'A' || c == 'x' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// isLocaleName reports whether name sets the locale bash itself reads.
func isLocaleName(name string) bool {
	return name == "LANG" || name == "LANGUAGE" || strings.HasPrefix(name, "LC_")
}

// safeLocale reports whether v names a locale that reads bytes as the
// workspace-write bash does: C, POSIX, a UTF-8 one (…UTF-8 or …utf8, an
// @modifier allowed) or none (empty). Another character set (BIG5: a
// byte of a two-byte character can be a backslash or a quote) would make
// bash, which reads the locale again on assignment, parse the approved
// command differently; a path would load a locale from a file.
func (v *shVar) safeLocale() bool {
	if v.array() {
		return false
	}
	s := v.value
	if s == "" || s == "C" || s == "POSIX" {
		return true
	}
	if strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-@") != "" {
		return false
	}
	set, _, _ := strings.Cut(strings.ToLower(s), "@")
	return strings.HasSuffix(set, ".utf-8") || strings.HasSuffix(set, ".utf8")
}

// sane reports whether sourcing v as olly writes it gives v back, and
// only v: an array is indexed or associative, not both, an indexed
// array's keys are numbers as bash prints them, and a key may not repeat.
func (v *shVar) sane() bool {
	a := v.attrs
	if strings.Contains(a, "a") && strings.Contains(a, "A") {
		return false
	}
	if !v.array() {
		return true
	}
	seen := make(map[string]bool, len(v.elems))
	for _, e := range v.elems {
		if seen[e.key] || (!strings.Contains(a, "A") && !isDecimal(e.key)) {
			return false
		}
		seen[e.key] = true
	}
	return true
}

// isDecimal reports whether s, an indexed array's key, is an index as
// bash prints one: no leading zero (sourced, [010] is bash's 8). key()
// reads such a key as 1 to 18 digits, so no sign and no overflow.
func isDecimal(s string) bool {
	return s == "0" || s[0] != '0'
}

// names reports whether a value of v mentions one of places (ignoring
// case where the file system usually does: foldPaths).
func (v *shVar) names(places []string) bool {
	hit := func(s string) bool {
		if strings.Contains(s, "/proc/") {
			return true
		}
		for _, p := range places {
			if mentions(s, p, foldPaths) {
				return true
			}
		}
		return false
	}
	if hit(v.value) {
		return true
	}
	for _, e := range v.elems {
		if hit(e.key) || hit(e.value) {
			return true
		}
	}
	return false
}

// foldPaths: on macOS the file system ignores case by default, so the
// state folder spelt in upper case is the same folder.
var foldPaths = runtime.GOOS == "darwin"

// mentions reports whether s contains place (not empty), ignoring case
// when fold is set.
func mentions(s, place string, fold bool) bool {
	if place == "" {
		return false
	}
	if fold {
		return strings.Contains(strings.ToLower(s), strings.ToLower(place))
	}
	return strings.Contains(s, place)
}

// handPlaces are the strings an exported variable from a read-only bash
// must not contain: olly's shell state and the session's TMPDIR, by path
// and by their folders' own names (a relative path reaches them too).
func (s *Shell) handPlaces() []string {
	var out []string
	for _, p := range []string{s.tmpDir, s.m.stateDir} {
		if p != "" {
			out = append(out, p, filepath.Base(p))
		}
	}
	return out
}

// maxDataState bounds the read-only state olly parses: a real one is a
// few kilobytes; one past this is not carried (the workspace-write bash
// keeps its own state), so a command cannot make olly hold much memory.
const maxDataState = 4 << 20

// handNote is what the model is told when a hand-over left something
// behind ("" when nothing was).
func handNote(code bool, dropped, unexported []string, partial bool) string {
	var parts []string
	if code {
		parts = append(parts, "functions and aliases that read-only commands defined or changed do not carry over to commands that write")
	}
	if len(dropped) > 0 {
		parts = append(parts, fmt.Sprintf("%d variables that read-only commands set or unset were not carried (%s): this shell keeps its own value of each (names it exports, loader settings); set them in this command if it needs them", len(dropped), strings.Join(short(dropped), ", ")))
	}
	if len(unexported) > 0 {
		parts = append(parts, fmt.Sprintf("variables read-only commands exported (%s) reach this command unexported: export them again here if needed", strings.Join(short(unexported), ", ")))
	}
	if partial {
		parts = append(parts, "part of the read-only commands' saved state could not be read and was dropped")
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ")
}

// short is names, the first five and "…" when there are more.
func short(names []string) []string {
	if len(names) > 5 {
		return append(slices.Clone(names[:5]), "…")
	}
	return names
}

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Refusal is an access the sandbox probably refused.
type Refusal struct {
	// Access is "write", "read", "network", "git" (writing a
	// repository's .git, which stays read-only), "git-folder" (an entry
	// of the folder holding a .git, where per-entry rules protect it) or
	// "git-pinned" (renaming or removing a folder on the way to a .git,
	// which mounts keep in place).
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
	case "git-folder":
		return "creating, renaming or removing " + r.Path + " (this machine keeps .git read-only with per-entry rules, so the folder that holds a .git, and each folder on the way to a nested repository's, cannot change its own entries; files in their subfolders can be changed)"
	case "git-pinned":
		return "renaming or removing " + r.Path + " (a folder on the way to a repository's .git: it stays where it is in the sandbox, so that no other .git can be put in the place where git will look; what is inside it can be changed)"
	case "git":
		return "changing " + r.Path + " (a repository's .git is read-only in the sandbox, because git runs its hooks and configuration later outside it; git commands that write it, such as add, commit, checkout or fetch, need the person's approval to run outside the sandbox)"
	}
	return "writing " + r.Path + " (outside the places this policy may change)"
}

// deniedLine matches the messages a refused access produces: EACCES
// ("Permission denied") from Landlock, EPERM from Seatbelt ("Operation not
// permitted"), and the read-only file system some tools report.
// "Device or resource busy" is renaming or removing a read-only mount
// point (.git).
var deniedLine = regexp.MustCompile(`(?i)permission denied|operation not permitted|read-only file system|resource busy|EACCES|EPERM|EROFS|EBUSY`)

// netLine matches a refused connection or bind.
var netLine = regexp.MustCompile(`(?i)connect|bind|socket|network|resolve host|urlopen|dial tcp`)

// pathToken matches absolute paths, home-relative paths and quoted
// relative paths in an error message.
var pathToken = regexp.MustCompile("(?:^|[\\s'\"`‘(=:])((?:~|\\.{1,2})?/[^\\s'\"`’():,]*|[A-Za-z0-9_.][^\\s'\"`’():,]*/[^\\s'\"`’():,]*)")

// spacedPath matches a quoted absolute or home-relative path with a space
// in it, which pathToken would cut at the space (git quotes the paths it
// names: "Unable to create '/home/me/My Project/.git/index.lock'").
var spacedPath = regexp.MustCompile("['\"`‘](~?/[^'\"`’\n]* [^'\"`’\n]*)['\"`’]")

// bashSpacedPath matches the path with a space in it that bash names,
// unquoted, when it cannot open a redirection's file ("bash: line 1:
// /home/me/My Project/x: Permission denied").
var bashSpacedPath = regexp.MustCompile(`line [0-9]+: (~?/[^\n]* [^\n]*?): (?i:permission denied|read-only file system|operation not permitted)`)

// takeSpaced returns the quoted paths with a space in line, and line with
// each of them blanked out, so the other patterns do not read them again
// in pieces.
func takeSpaced(line string) ([]string, string) {
	var paths []string
	for _, re := range []*regexp.Regexp{spacedPath, bashSpacedPath} {
		ms := re.FindAllStringSubmatchIndex(line, -1)
		if ms == nil {
			continue
		}
		b := []byte(line)
		for _, m := range ms {
			paths = append(paths, line[m[2]:m[3]])
			for i := m[2]; i < m[3]; i++ {
				b[i] = ' '
			}
		}
		line = string(b)
	}
	return paths, line
}

// bareName matches a name without a slash that a message quotes
// ('.git', ‘x’) or puts before the error (bash's "line 1: x: Permission
// denied"): only checked against the read-only paths and their folders.
var bareName = regexp.MustCompile("['\"`‘]([^\\s'\"`’/]+)['\"`’]|(?:^|[\\s:])([^\\s:'\"`‘’/]+): (?i:permission denied|read-only file system|operation not permitted|device or resource busy)")

// Explain reads a command's output for accesses the sandbox refused under
// spec: a write outside the writable places, a read of a protected path, a
// write to a repository's .git or to the folder holding it, a refused
// connection. cwd and home resolve relative paths. It is a reading of
// error messages, so it reports only what the messages name; at most 5
// refusals. It takes the mode from spec.Mount (mounts, or per-entry
// rules without it); Sandbox.Explain knows this machine's mode.
func Explain(spec Spec, cwd, home, output string) []Refusal {
	mode := GitSplit
	if spec.Mount {
		mode = GitMount
	}
	return explain(spec, mode, cwd, home, output)
}

// explain is Explain with the way .git is kept read-only (Status.Git).
func explain(spec Spec, mode, cwd, home, output string) []Refusal {
	if spec.Policy == Unsandboxed || spec.Policy == "" {
		return nil
	}
	if mode == GitSeatbelt {
		spec.Nested = &Nested{} // Seatbelt's rule covers .git at any depth (gitPath): no search
	}
	e := explainer{spec: spec, mode: mode, cwd: cwd, home: home, deny: realPaths(spec.DenyRead), seen: map[Refusal]bool{}}
	for line := range strings.Lines(output) {
		if !deniedLine.MatchString(line) {
			continue
		}
		e.line = line
		found := false
		spaced, rest := takeSpaced(line)
		for _, p := range spaced {
			found = e.path(p) || found
		}
		for _, m := range pathToken.FindAllStringSubmatch(rest, -1) {
			found = e.path(m[1]) || found
		}
		for _, m := range bareName.FindAllStringSubmatch(rest, -1) {
			found = e.gitName(m[1]+m[2]) || found
		}
		if !found && !spec.network() && netLine.MatchString(line) {
			e.add(Refusal{Access: "network"})
		}
	}
	return e.out
}

type explainer struct {
	spec      Spec
	mode      string // how .git is kept read-only (Status.Git)
	line      string // the denied line being read
	cwd, home string
	deny, ro  []string
	existing  []string // the read-only paths that exist
	loaded    bool     // ro and existing are worked out (load)
	out       []Refusal
	seen      map[Refusal]bool
}

func (e *explainer) add(r Refusal) {
	if !e.seen[r] && len(e.out) < 5 {
		e.seen[r] = true
		e.out = append(e.out, r)
	}
}

// path reports the refusal a path named in a denied line explains.
func (e *explainer) path(token string) bool {
	p := absPath(strings.TrimRight(token, ".;"), e.cwd, e.home)
	switch {
	case p == "":
		return false
	case slices.ContainsFunc(e.deny, func(d string) bool { return under(p, d) }):
		e.add(Refusal{Access: "read", Path: p})
	case e.gitPath(p):
	case !e.spec.mayWrite(p):
		e.add(Refusal{Access: "write", Path: p})
	default:
		return false
	}
	return true
}

// gitName reports the refusal a bare name explains, if it is a read-only
// path or an entry beside one.
func (e *explainer) gitName(name string) bool {
	p := absPath(strings.TrimRight(name, ".;"), e.cwd, e.home)
	return p != "" && e.gitPath(p)
}

// gitPath adds the refusal of a write to a read-only path (.git), or,
// where per-entry rules keep .git read-only, of creating, renaming or
// removing an entry of the folder holding one (that folder's own entries
// cannot change). Other failures there (a script without +x, a file the
// person cannot read) are not the sandbox's: an existing entry counts
// only when the line says it was moved or removed, and with mounts a
// write into .git fails with EROFS (or EBUSY renaming it), never EACCES.
func (e *explainer) gitPath(p string) bool {
	e.load()
	in := func(r string) bool { return under(p, r) || under(realOrSelf(p), r) }
	// The folder holding a protected path, and with per-entry rules each
	// folder on the way down to it from its writable place, cannot get,
	// lose or rename entries (a nested repository's too: Plan).
	beside := func(r string) bool {
		for _, d := range []string{filepath.Dir(p), filepath.Dir(realOrSelf(p))} {
			if d == filepath.Dir(r) || under(filepath.Dir(r), d) && e.spec.mayWrite(d) {
				return true
			}
		}
		return false
	}
	switch {
	case (slices.ContainsFunc(e.ro, in) || e.mode == GitSeatbelt && e.anyGit(p)) && (e.mode != GitMount || roLine.MatchString(e.line)):
		e.add(Refusal{Access: "git", Path: p})
	case e.mode == GitSplit && slices.ContainsFunc(e.existing, beside) && (!exists(p) || moveLine.MatchString(e.line)):
		e.add(Refusal{Access: "git-folder", Path: p})
	case e.mode == GitMount && busyLine.MatchString(e.line) && e.spec.mayWrite(p) &&
		slices.ContainsFunc(e.existing, func(r string) bool { return r != p && (under(r, p) || under(r, realOrSelf(p))) }):
		// A folder on the way to a protected path is a mount point
		// (pinFolders): renaming or removing it fails with EBUSY.
		e.add(Refusal{Access: "git-pinned", Path: p})
	default:
		return false
	}
	return true
}

// load works out the read-only paths, once, when a denied line first
// needs them: most failed commands (a grep with no match, a failing test)
// have none, and the work re-reads every repository's index.
func (e *explainer) load() {
	if !e.loaded {
		e.loaded = true
		e.existing = e.spec.readOnly(true)
		e.ro = append(e.spec.readOnly(false), e.existing...)
	}
}

// anyGit reports whether p lies in a .git (any letter case) below a
// writable place, which Seatbelt keeps read-only at any depth.
func (e *explainer) anyGit(p string) bool {
	for _, w := range e.spec.writable() {
		for _, q := range []string{filepath.Clean(w), realOrSelf(w)} {
			rel, err := filepath.Rel(q, p)
			if err != nil || !filepath.IsLocal(rel) {
				continue
			}
			if slices.ContainsFunc(strings.Split(rel, "/"), func(c string) bool { return strings.EqualFold(c, GitDir) }) {
				return true
			}
		}
	}
	return false
}

// roLine matches what a write to a read-only mount reports.
var roLine = regexp.MustCompile(`(?i)read-only file system|resource busy|EROFS|EBUSY`)

// busyLine matches what renaming or removing a mount point reports.
var busyLine = regexp.MustCompile(`(?i)resource busy|EBUSY`)

// moveLine matches a message about renaming or removing an entry (mv, rm,
// rename(2), unlink(2), an editor's save by rename).
var moveLine = regexp.MustCompile(`(?i)\b(?:mv|rm|rmdir|move|moving|rename|renaming|remove|removing|unlink|delete|deleting)\b`)

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
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

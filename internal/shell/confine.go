package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/olly-agent/olly/internal/sandbox"
)

// wantSpec returns the sandbox a command under policy asks for, its
// places cleaned but not resolved again: the roots and build caches as
// resolved when the manager was made, writable as workspace.Dirs gives
// them (resolved by Allow), the TMPDIR as resolved when made. It costs
// no file system call, so the common case, a live bash started for the
// same request (fits), pays nothing for the sandbox; a new bash is
// started only under pinSpec's result.
func (s *Shell) wantSpec(policy sandbox.Policy, writable []string) sandbox.Spec {
	if policy == "" {
		policy = sandbox.WorkspaceWrite
	}
	if policy == sandbox.Unsandboxed || !s.m.opts.Sandbox.Status().Active() {
		return sandbox.Spec{Policy: sandbox.Unsandboxed}
	}
	spec := s.m.opts.SandboxSpec
	spec.Policy = policy
	spec.Pinned = true
	allowed := uniquePaths(writable)
	spec.Writable = uniquePaths(s.m.roots.real, allowed, s.m.caches)
	// The session's TMPDIR comes first, after the bash's own state
	// folder, which startProc adds (withOwnDir) and which is all the
	// read-only policy may write (sandbox.Spec.Own). Then the session's scratch directories: those allowed
	// directly inside ScratchDir (which lies in a protected folder), not
	// ScratchDir itself, which holds every session's.
	spec.Own = slices.Concat([]string{s.tmpDir}, s.scratchDirs(allowed), spec.Own)
	// Other sessions' shell state, and the other bash processes' folders
	// of this session, are not this command's business.
	spec.DenyRead = s.m.denyRead
	return spec
}

// pinSpec returns want with only the places that still resolve to
// themselves (pinned), and whether it dropped any.
//
// Every place wantSpec lets commands write was a real path when olly
// accepted it, and is granted to a new bash only while it still
// resolves to itself: one a command replaced by a symbolic link (it
// could, where the folder holding it is writable too) would otherwise
// make the link's target writable to the next bash. A live bash's rules
// are fixed to the inodes it started with, and its stamps (one stat per
// place) see a place replaced: so only a new bash needs this.
func pinSpec(want sandbox.Spec) (spec sandbox.Spec, lost bool) {
	if want.Policy == sandbox.Unsandboxed {
		return want, false
	}
	spec = want
	spec.Writable, spec.Own = pinned(want.Writable), pinned(want.Own)
	return spec, len(spec.Writable) != len(want.Writable) || len(spec.Own) != len(want.Own)
}

// scratchDirs returns the allowed directories that lie directly in the
// manager's ScratchDir.
func (s *Shell) scratchDirs(allowed []string) []string {
	base := s.m.scratchBase()
	if base == "" {
		return nil
	}
	var out []string
	for _, p := range allowed {
		if filepath.Dir(p) == base {
			out = append(out, p)
		}
	}
	return out
}

// pinned returns the paths that still resolve to themselves (or, missing,
// whose existing part does): see pinSpec.
func pinned(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if p != "" && sandbox.RealPrefix(p) == p {
			out = append(out, p)
		}
	}
	return out
}

// uniquePaths joins the lists, cleaned, each path once (the workspace's
// directories come with the roots the manager already has: the kernel
// would get each rule twice).
func uniquePaths(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, p := range l {
			if p = filepath.Clean(p); !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// sameSpec reports whether a bash confined by a may run a command that
// needs b: the kernel fixes a process's sandbox when it starts.
func sameSpec(a, b sandbox.Spec) bool {
	if a.Policy != b.Policy || !slices.Equal(a.DenyRead, b.DenyRead) {
		return false
	}
	if a.Policy != sandbox.WorkspaceWrite {
		// The read-only sandbox lets a command write only its bash's own
		// folder: the places the workspace-write one may change (a turn's
		// scratch directory, a directory a person allowed) are no part of
		// it, and need no new read-only bash.
		return true
	}
	return a.Network == b.Network && samePaths(a.Writable, b.Writable) && slices.Equal(a.Own, b.Own)
}

// grantedPlaces are the places spec (as started: withOwnDir) lets a
// command write: for the read-only policy only the bash's own folder.
func grantedPlaces(spec sandbox.Spec) []string {
	if spec.Policy == sandbox.ReadOnly {
		return spec.Own[:min(1, len(spec.Own))]
	}
	return slices.Concat(spec.Writable, spec.Own)
}

// samePaths reports whether a and b hold the same paths in any order (the
// allow list does not depend on it; a workspace's directories may come in
// another order when the frontend started the shell ahead).
func samePaths(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, p := range a {
		if !slices.Contains(b, p) {
			return false
		}
	}
	return true
}

// makeTmpDir creates the session's private temporary folder, which every
// command gets as TMPDIR (and TMP, TEMP): the workspace-write sandbox lets
// commands write there and not in the shared /tmp.
func (s *Shell) makeTmpDir() error {
	dir, err := os.MkdirTemp("", "olly-tmp-"+fileLabel(s.id)+"-*")
	if err != nil {
		return fmt.Errorf("shell: create the session's temporary folder: %w", err)
	}
	// Pinned as a real path (as pinSpec wants it): the folder holding it may be a
	// link (macOS's /var), never the folder itself.
	s.tmpDir = realPath(dir)
	return nil
}

// explainRefusals adds a note when the sandbox probably refused something
// the command tried: the model reads what, and how to ask the person to
// run it outside the sandbox.
// nested is the search for nested repositories the command's bash was
// planned with (it knows which .git are protected without searching
// again).
func (s *Shell) explainRefusals(spec sandbox.Spec, nested *sandbox.Nested, start string, res *Result) {
	res.Policy = spec.Policy
	if spec.Policy == sandbox.Unsandboxed || res.ExitCode == 0 {
		return
	}
	spec.Nested = nested
	home, _ := os.UserHomeDir()
	// The sandbox's own Explain knows how .git is kept read-only here
	// (mounts or per-entry rules), which changes what a refusal means.
	res.Refused = s.m.opts.Sandbox.Explain(spec, start, home, res.Output)
	if n := sandbox.Note(spec.Policy, res.Refused); n != "" {
		res.Notes = append(res.Notes, n)
	}
}

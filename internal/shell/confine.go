package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/olly-agent/olly/internal/sandbox"
)

// sandboxSpec returns the sandbox one command runs in under policy (Policy
// Unsandboxed when nothing confines it).
func (s *Shell) sandboxSpec(policy sandbox.Policy, writable []string) sandbox.Spec {
	sb := s.m.opts.Sandbox
	if policy == "" {
		policy = sandbox.WorkspaceWrite
	}
	if policy == sandbox.Unsandboxed || !sb.Status().Active() {
		return sandbox.Spec{Policy: sandbox.Unsandboxed}
	}
	spec := s.m.opts.SandboxSpec
	spec.Policy = policy
	spec.Writable = uniquePaths(s.m.roots.paths, writable, spec.Writable)
	// The session's TMPDIR comes first: the read-only policy may write
	// only that and the bash's own state folder, which startProc adds
	// (withOwnDir).
	spec.Own = append([]string{s.tmpDir}, spec.Own...)
	// Other sessions' shell state, and the other bash processes' folders
	// of this session, are not this command's business.
	spec.DenyRead = append(append([]string(nil), spec.DenyRead...), s.m.stateDir)
	return spec
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
	return a.Policy == b.Policy && a.Network == b.Network && samePaths(a.Writable, b.Writable) &&
		slices.Equal(a.Own, b.Own) && slices.Equal(a.DenyRead, b.DenyRead)
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
	s.tmpDir = dir
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

package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

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
	// The shell's state comes first: the read-only policy may write only
	// that (the wrapper saves the session's cd and variables there).
	spec.Own = append([]string{s.dir, s.tmpDir}, spec.Own...)
	// Other sessions' shell state is not this command's business.
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
	return a.Policy == b.Policy && a.Network == b.Network && slices.Equal(a.Writable, b.Writable) &&
		slices.Equal(a.Own, b.Own) && slices.Equal(a.DenyRead, b.DenyRead)
}

// dirStamp is what a long-lived bash's sandbox depends on that can change
// after it started: a directory the rules split into its entries (one
// that holds a protected path), whose later entries no rule covers (and
// whose entries replaced by a rename lose theirs: the kernel's rules
// attach to inodes), or an allowed place that did not exist yet (a build
// cache made later), which no rule covers either. Either changing means
// the next command gets a new bash, whose rules are made afresh.
type dirStamp struct {
	path   string
	mtime  time.Time
	exists bool
}

// stampsFor lists the dirStamps of spec. Split directories are watched
// where people and olly's own tools make files: in the places the spec
// lets commands write (a workspace root that holds a protected path) and
// in the home folder. System directories split only on the way down to a
// protected path (/, /dev/shm that holds olly's state, /tmp when a home
// lies in it) are not: other programs add entries there all the time, and
// a command rarely needs one made after its session's bash started.
func stampsFor(spec sandbox.Spec, home string) []dirStamp {
	if spec.Policy == sandbox.Unsandboxed {
		return nil
	}
	watched := slices.Concat(spec.Writable, spec.Own)
	if home != "" {
		watched = append(watched, home)
	}
	var out []dirStamp
	for _, g := range sandbox.Plan(spec) {
		if g.Access == sandbox.List && slices.ContainsFunc(watched, func(w string) bool { return within(w, g.Path) || within(realPath(w), g.Path) }) {
			out = append(out, stamp(g.Path))
		}
	}
	for _, p := range slices.Concat(spec.Writable, spec.Own) {
		if st := stamp(p); !st.exists {
			out = append(out, st)
		}
	}
	return out
}

// realPath is p with symbolic links resolved, or p if that fails (the
// rules name resolved paths).
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func stamp(path string) dirStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return dirStamp{path: path}
	}
	return dirStamp{path: path, mtime: fi.ModTime(), exists: true}
}

// stampsChanged reports whether any stamp no longer holds.
func stampsChanged(stamps []dirStamp) bool {
	for _, st := range stamps {
		if now := stamp(st.path); now.exists != st.exists || !now.mtime.Equal(st.mtime) {
			return true
		}
	}
	return false
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
func (s *Shell) explainRefusals(spec sandbox.Spec, start string, res *Result) {
	res.Policy = spec.Policy
	if spec.Policy == sandbox.Unsandboxed || res.ExitCode == 0 {
		return
	}
	home, _ := os.UserHomeDir()
	res.Refused = sandbox.Explain(spec, start, home, res.Output)
	if n := sandbox.Note(spec.Policy, res.Refused); n != "" {
		res.Notes = append(res.Notes, n)
	}
}

// Package sandbox confines the commands olly runs with the kernel: Landlock
// on Linux, Seatbelt (sandbox-exec) on macOS. olly re-executes itself as a
// small helper (Wrap builds its command line; RunHelper is its body) that
// applies the policy to itself and then executes the program, so the
// program and everything it starts live inside the sandbox.
//
// Policies (docs/safety.md has the table):
//   - ReadOnly: read anywhere but the protected paths, write only olly's
//     own folders for the session (its shell state), no TCP.
//   - WorkspaceWrite: ReadOnly plus writing the workspace roots (but
//     never their .git: git.go), the session's temporary and scratch
//     folders and the build caches; TCP only if Spec.Network.
//   - Unsandboxed: not confined; only a person grants it.
package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// Policy is what a sandboxed command may do.
type Policy string

// The policies. The values are the wire names of event.Sandbox*.
const (
	ReadOnly       Policy = "read-only"
	WorkspaceWrite Policy = "workspace-write"
	Unsandboxed    Policy = "unsandboxed"
)

// HelperArg is the hidden first argument that makes olly run as the
// sandbox helper: olly __sandbox SPEC PROGRAM ARGS...
const HelperArg = "__sandbox"

// Spec is everything the helper needs to confine one command. It travels
// as JSON on the helper's command line.
type Spec struct {
	Policy Policy `json:"policy"`
	// Writable are the places a WorkspaceWrite command may change: the
	// workspace roots and the build caches. Protected paths inside them
	// stay protected; missing ones are skipped.
	Writable []string `json:"writable,omitempty"`
	// Own are olly's own folders for the session (shell state, TMPDIR,
	// scratch): writable under every sandboxed policy, even where they
	// lie inside a protected folder, because the shell needs them.
	// ReadOnly uses only the first (the shell state).
	Own []string `json:"own,omitempty"`
	// Pinned says Writable and Own are real paths (symbolic links
	// resolved when the caller accepted them): one that resolves to
	// another path when the rules are made (a command replaced it with a
	// link) is not granted, instead of its link's target. The caller
	// checks too; this closes the gap up to the rules being made, in
	// whichever process makes them.
	Pinned bool `json:"pinned,omitempty"`
	// DenyRead are the protected paths: no sandboxed command reads them.
	DenyRead []string `json:"denyRead,omitempty"`
	// Network lets a WorkspaceWrite command open TCP connections.
	Network bool `json:"network,omitempty"`
	// ReadOnly are paths inside the writable places that a WorkspaceWrite
	// command may read but not change. Each writable place's .git (and
	// its submodules') is always among them (see readOnly).
	ReadOnly []string `json:"readOnly,omitempty"`
	// Caches are the writable places that are build caches (listed in
	// Writable too): they are not searched for nested repositories
	// (nested.go), which are looked for where people work.
	Caches []string `json:"caches,omitempty"`
	// Nested are the repositories found inside the writable places
	// (nested.go), kept read-only like the places' own; nil means search
	// when needed. PlanStart and Prepare search once (replacing a
	// caller's) and pass the answer to the helper.
	Nested *Nested `json:"nested,omitempty"`
	// Mount tells the helper that Start created a user and mount
	// namespace for it: it bind-mounts the read-only paths read-only
	// there before confining itself. Without it the allow list keeps
	// them read-only with per-entry rules (Plan).
	Mount bool `json:"mount,omitempty"`
	// Ruleset, when not 0, is the number of a descriptor the helper
	// inherits holding the Landlock ruleset olly already built for this
	// spec (with RulesetFlags for landlock_restrict_self): the helper
	// applies it instead of building its own, which costs it listing
	// folders and a system call per rule.
	Ruleset      int    `json:"ruleset,omitempty"`
	RulesetFlags uint32 `json:"rulesetFlags,omitempty"`
}

func (s Spec) check() error {
	switch s.Policy {
	case ReadOnly, WorkspaceWrite:
	default:
		return fmt.Errorf("sandbox: policy %q cannot be enforced (want %s or %s)", s.Policy, ReadOnly, WorkspaceWrite)
	}
	var nested []string
	if s.Nested != nil {
		nested = s.Nested.Git
	}
	for _, list := range [][]string{s.Writable, s.Own, s.DenyRead, s.ReadOnly, s.Caches, nested} {
		for _, p := range list {
			if !filepath.IsAbs(p) {
				return fmt.Errorf("sandbox: path %q is not absolute", p)
			}
		}
	}
	return nil
}

// writable returns the places the policy may change besides Own.
func (s Spec) writable() []string {
	if s.Policy == WorkspaceWrite {
		return s.Writable
	}
	return nil
}

// own returns the olly folders the policy may change.
func (s Spec) own() []string {
	if s.Policy == ReadOnly && len(s.Own) > 1 {
		return s.Own[:1]
	}
	return s.Own
}

// network reports whether TCP is allowed.
func (s Spec) network() bool { return s.Policy == WorkspaceWrite && s.Network }

// Status says whether commands can be confined on this machine.
type Status struct {
	// Mechanism is "landlock", "seatbelt", or "" when there is none.
	Mechanism string
	// ABI is the Landlock ABI version (0 elsewhere).
	ABI int
	// Reason explains a missing sandbox, or what the one present cannot
	// do (an old Landlock without network rules).
	Reason string
	// Git says how a workspace's .git is kept read-only (GitMount,
	// GitSplit, GitSeatbelt); GitReason why it is not GitMount on Linux.
	Git, GitReason string
}

// Active reports whether a sandbox confines commands.
func (s Status) Active() bool { return s.Mechanism != "" }

// String describes the status in one line, for olly doctor and the
// first line of a run.
func (s Status) String() string {
	switch {
	case !s.Active():
		return "no sandbox: " + s.Reason + "; every command that is not read-only asks"
	case s.Mechanism == "landlock":
		out := fmt.Sprintf("Landlock (ABI %d)", s.ABI)
		if s.Reason != "" {
			out += "; " + s.Reason
		}
		return out + "; " + s.gitString()
	default:
		return s.Mechanism + "; " + s.gitString()
	}
}

func (s Status) gitString() string {
	switch s.Git {
	case GitSplit:
		return ".git read-only by per-entry rules (" + s.GitReason + "), so commands cannot create or rename entries at a repository's top level"
	case "":
		return ".git protection unknown"
	}
	return ".git read-only (" + s.Git + ")"
}

// Sandbox wraps commands in the helper.
type Sandbox struct {
	status Status
	exe    string
	// inProcess confines a thread of olly for each command (Start)
	// instead of starting the helper; Landlock only.
	inProcess bool
	// git is how .git is kept read-only, found once (shared by copies).
	git *gitGuard
	// noHelper: exe is this program, which does not run the helper.
	noHelper bool
}

// gitGuard holds how .git is kept read-only on this machine.
type gitGuard struct {
	once        sync.Once
	how, reason string
	// cache is the file remembering the probe's answer (CacheGitProbe);
	// "" probes in every process.
	cache string
}

// helperWired records that this program calls RunHelperIfAsked first
// thing, so re-executing it as the helper works. It is a fact about the
// program's main (a test binary whose TestMain does not call it must not
// be re-executed: it would run its tests instead), set once at start.
var helperWired atomic.Bool

// New detects the sandbox of this machine. exe is olly's own executable
// (the helper); "" means os.Executable, which must have called
// RunHelperIfAsked at start.
func New(exe string) *Sandbox {
	st := detect()
	if st.Active() && exe == "" && st.Mechanism == "landlock" {
		var err error
		switch exe, err = os.Executable(); {
		case err != nil:
			st = Status{Reason: fmt.Sprintf("cannot find olly's own executable to run the sandbox helper: %v", err)}
		case !helperWired.Load():
			st = Status{Reason: "this program does not run the sandbox helper (its main does not call sandbox.RunHelperIfAsked)"}
		}
	}
	b := &Sandbox{status: st, exe: exe, inProcess: st.Mechanism == "landlock", git: &gitGuard{}}
	// This program, if its main does not run the helper, must never be
	// started as one (a test binary would run its tests instead).
	if self, err := os.Executable(); err == nil && !helperWired.Load() && sameFile(self, exe) {
		b.noHelper = true
	}
	return b
}

func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// WithHelper returns a copy of b that confines commands by starting the
// helper process (olly __sandbox) instead of a confined thread of olly:
// slower, for comparison and for programs that must not create threads.
func (b *Sandbox) WithHelper() *Sandbox {
	c := *b
	c.inProcess = false
	return &c
}

// Disabled returns a Sandbox that confines nothing, saying why.
func Disabled(reason string) *Sandbox { return &Sandbox{status: Status{Reason: reason}} }

// Status reports what the sandbox can do. The first call on an active
// Landlock sandbox probes (once, about as long as one sandboxed command)
// whether .git can be kept read-only with a mount namespace, or reads the
// answer remembered by an earlier olly (CacheGitProbe).
func (b *Sandbox) Status() Status {
	if b == nil {
		return Status{Reason: "the sandbox is not set up"}
	}
	st := b.status
	if st.Active() && b.git != nil {
		b.git.once.Do(func() { b.git.how, b.git.reason = b.detectGit() })
		st.Git, st.GitReason = b.git.how, b.git.reason
	}
	return st
}

// detectGit finds how .git can be kept read-only here.
func (b *Sandbox) detectGit() (how, reason string) {
	if b.status.Mechanism == "seatbelt" {
		return GitSeatbelt, ""
	}
	if b.noHelper {
		return GitSplit, "this program does not run the sandbox helper"
	}
	return b.probeGitCached()
}

// Wrap returns the command line that runs argv under spec. An Unsandboxed
// spec, or no active sandbox, returns argv unchanged. A caller's
// Spec.Nested is dropped: the helper searches for nested repositories
// itself (only olly's own search is trusted to be whole or say it is not).
func (b *Sandbox) Wrap(spec Spec, argv []string) ([]string, error) {
	spec.Nested = nil
	return b.wrap(spec, argv)
}

// wrap is Wrap for a spec whose Nested olly's own search filled (or nil).
func (b *Sandbox) wrap(spec Spec, argv []string) ([]string, error) {
	if spec.Policy == Unsandboxed || !b.Status().Active() {
		return argv, nil
	}
	if err := spec.check(); err != nil {
		return nil, err
	}
	switch b.status.Mechanism {
	case "seatbelt":
		return append([]string{seatbeltExec, "-p", SeatbeltProfile(spec), "--"}, argv...), nil
	default:
		js, err := json.Marshal(spec)
		if err != nil {
			return nil, fmt.Errorf("sandbox: encode policy: %w", err)
		}
		return append([]string{b.exe, HelperArg, string(js)}, argv...), nil
	}
}

// seatbeltExec is macOS's sandbox launcher.
const seatbeltExec = "/usr/bin/sandbox-exec"

// RunHelperIfAsked runs the helper when olly was started as one (first
// argument HelperArg) and never returns then. Call it first thing in main
// (and in TestMain of packages whose tests run sandboxed commands).
func RunHelperIfAsked() {
	helperWired.Store(true)
	if len(os.Args) > 1 && os.Args[1] == HelperArg {
		os.Exit(runHelper(os.Args[2:]))
	}
}

// runHelper applies the spec in args[0] and executes args[1:]. It returns
// only on failure, with the exit status: a command that cannot be
// confined is never run unconfined.
func runHelper(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "olly sandbox: usage: olly __sandbox SPEC PROGRAM [ARGS...] (internal; olly runs this itself)")
		return 126
	}
	var spec Spec
	if err := json.Unmarshal([]byte(args[0]), &spec); err != nil {
		fmt.Fprintf(os.Stderr, "olly sandbox: bad policy: %v\n", err)
		return 126
	}
	if err := spec.check(); err != nil {
		fmt.Fprintf(os.Stderr, "olly sandbox: %v\n", err)
		return 126
	}
	if err := confineAndExec(spec, args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "olly sandbox: the command was not run: %v\n", err)
		return 126
	}
	return 0
}

// under reports whether p is dir or inside it (both clean and absolute).
func under(p, dir string) bool {
	if dir == "/" {
		return true
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}

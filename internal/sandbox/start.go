package sandbox

import (
	"fmt"
	"os/exec"
)

// Start starts cmd confined by spec and returns a channel that receives
// cmd.Wait's result once, when it has exited. An Unsandboxed spec, or no
// active sandbox, starts cmd as it is.
//
// On Linux the ruleset is applied in olly itself, to one OS thread that
// then starts cmd (a child inherits its parent thread's Landlock domain)
// and waits for it; the thread ends with the command and is never used
// for anything else. This costs a thread and a few system calls instead
// of starting the helper process (docs/performance.md). On macOS cmd runs
// under sandbox-exec.
func (b *Sandbox) Start(cmd *exec.Cmd, spec Spec) (<-chan error, error) {
	return b.StartPlanned(cmd, b.PlanStart(spec))
}

// StartPlan is a spec with the allow list Start gives the kernel for it
// (PlanStart), for a caller that needs the list itself (the session
// shell watches the directories it splits) without planning twice.
type StartPlan struct {
	spec   Spec
	grants []Grant
	// how Start confines: plain (not confined), mount (the helper in
	// namespaces of its own), thread (a confined thread of olly), or
	// wrap (the helper process, or sandbox-exec).
	how startHow
}

type startHow int

const (
	startPlainly startHow = iota
	startMount
	startThread
	startWrap
)

// Grants is the allow list the kernel gets (Plan of the spec as started:
// with Spec.Mount where the helper makes .git read-only by mounts); nil
// when nothing confines the command.
func (p *StartPlan) Grants() []Grant { return p.grants }

// Nested is the search for nested repositories made for this plan (nil
// when none was needed: not workspace-write, not Landlock). Its Cut says
// where it did not look, which is not protected: the caller tells the
// person. Given back in the Spec passed to Explain, it spares a search.
func (p *StartPlan) Nested() *Nested { return p.spec.Nested }

// PlanStart decides how Start confines a command under spec and plans
// its allow list, once.
func (b *Sandbox) PlanStart(spec Spec) *StartPlan {
	if spec.Policy == Unsandboxed || !b.Status().Active() {
		return &StartPlan{spec: spec, how: startPlainly}
	}
	p := &StartPlan{spec: spec, how: startWrap}
	if spec.check() != nil {
		return p // StartPlanned reports it
	}
	if b.status.Mechanism == "landlock" {
		// One search for nested repositories, which the helper and the
		// caller (StartPlan.Nested) get with the plan.
		spec = spec.searched()
		p.spec = spec
	}
	// Start decides the mode itself: a Mount the caller set (from
	// Sandbox.Plan's view) must not leave .git unsplit without mounts.
	spec.Mount = false
	if b.status.Mechanism != "landlock" {
		p.grants = Plan(p.spec)
		return p
	}
	// A .git to keep read-only needs the helper in namespaces of its own
	// where they work; otherwise the allow list splits the folder that
	// holds it (Plan). The read-only paths are worked out once here (the
	// helper works them out again itself, when it mounts).
	ro := spec.readOnly(true)
	switch {
	case len(ro) > 0 && b.Status().Git == GitMount:
		p.how, p.spec.Mount = startMount, true
		ro = nil // mounted, not split
	case b.inProcess:
		p.how = startThread
	}
	p.grants = planWith(p.spec, ro)
	return p
}

// StartPlanned is Start with the plan made by PlanStart.
func (b *Sandbox) StartPlanned(cmd *exec.Cmd, p *StartPlan) (<-chan error, error) {
	if p.how == startPlainly {
		return startPlain(cmd)
	}
	if err := p.spec.check(); err != nil {
		return nil, err
	}
	switch p.how {
	case startMount:
		return b.startInNamespace(cmd, p.spec, p.grants)
	case startThread:
		return startConfined(cmd, p.spec, p.grants)
	}
	argv, err := b.wrap(p.spec, cmd.Args)
	if err != nil {
		return nil, err
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	cmd.Path, cmd.Args = path, argv
	return startPlain(cmd)
}

func startPlain(cmd *exec.Cmd) (<-chan error, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	waitc := make(chan error, 1)
	go func() { waitc <- cmd.Wait() }()
	return waitc, nil
}

// Prepare turns cmd, not yet started, into the command that runs it
// confined by spec, for callers that start it themselves (an MCP server's
// transport): the helper, in namespaces of its own where .git is kept
// read-only by mounts, or sandbox-exec on macOS. An Unsandboxed spec, or
// no active sandbox, leaves cmd as it is.
func (b *Sandbox) Prepare(cmd *exec.Cmd, spec Spec) error {
	if spec.Policy == Unsandboxed || !b.Status().Active() {
		return nil
	}
	if err := spec.check(); err != nil {
		return err
	}
	spec.Mount = false // decided here, as in Start
	if b.status.Mechanism == "landlock" {
		spec = spec.searched()
	}
	if b.status.Mechanism == "landlock" && len(spec.readOnly(true)) > 0 && b.Status().Git == GitMount {
		spec.Mount = true
		return b.helperCmd(cmd, spec)
	}
	argv, err := b.wrap(spec, cmd.Args)
	if err != nil {
		return err
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	cmd.Path, cmd.Args = path, argv
	return nil
}

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
	if spec.Policy == Unsandboxed || !b.Status().Active() {
		return startPlain(cmd)
	}
	if err := spec.check(); err != nil {
		return nil, err
	}
	// Start decides the mode itself: a Mount the caller set (from
	// Sandbox.Plan's view) must not leave .git unsplit without mounts.
	spec.Mount = false
	if b.status.Mechanism == "landlock" {
		// A .git to keep read-only needs the helper in namespaces of its
		// own where they work; otherwise the allow list splits the
		// folder that holds it (Plan).
		if len(spec.readOnly(true)) > 0 && b.Status().Git == GitMount {
			return b.startInNamespace(cmd, spec)
		}
		if b.inProcess {
			return startConfined(cmd, spec)
		}
	}
	argv, err := b.Wrap(spec, cmd.Args)
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
	if b.status.Mechanism == "landlock" && len(spec.readOnly(true)) > 0 && b.Status().Git == GitMount {
		spec.Mount = true
		return b.helperCmd(cmd, spec)
	}
	argv, err := b.Wrap(spec, cmd.Args)
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

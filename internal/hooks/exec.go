package hooks

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// Output caps: what a hook prints beyond them is dropped (and said so), so
// a runaway hook cannot flood olly's memory or the model's context.
const (
	// maxOutput bounds each of a hook's stdout and stderr as read.
	maxOutput = 64 << 10
	// maxReason bounds the reason or context passed on to the model or
	// the person.
	maxReason = 8 << 10
)

// Starter starts a command (in the sandbox: sandbox.Sandbox.Start with the
// workspace's spec) and returns a channel that receives cmd.Wait's result.
type Starter func(cmd *exec.Cmd) (<-chan error, error)

// plainStart starts cmd as it is.
func plainStart(cmd *exec.Cmd) (<-chan error, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	waitc := make(chan error, 1)
	go func() { waitc <- cmd.Wait() }()
	return waitc, nil
}

// outcome is how one hook run ended.
type outcome struct {
	exitCode int // -1: did not exit on its own
	stdout   string
	stderr   string
	timedOut bool
	dur      time.Duration
	err      error // could not start
}

// capped is a buffer that keeps the first max bytes.
type capped struct {
	b       bytes.Buffer
	max     int
	dropped bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.b.Len(); room > 0 {
		c.b.Write(p[:min(room, len(p))])
	}
	if c.b.Len() >= c.max && len(p) > 0 {
		c.dropped = true
	}
	return len(p), nil
}

func (c *capped) String() string {
	if c.dropped {
		return c.b.String() + "\n[output truncated]"
	}
	return c.b.String()
}

// execHook runs h's command with bash -c in dir with env, input on stdin,
// killing its whole process group when the timeout passes or ctx ends.
func execHook(ctx context.Context, h Hook, dir string, env []string, start Starter, input []byte) outcome {
	began := time.Now()
	tctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	cmd := exec.Command("bash", "--noprofile", "--norc", "-c", h.Command)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = bytes.NewReader(input)
	var out, errb capped
	out.max, errb.max = maxOutput, maxOutput
	cmd.Stdout, cmd.Stderr = &out, &errb
	// Its own process group, so a timeout kills what the hook started too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A grandchild holding the pipes open must not keep olly waiting.
	cmd.WaitDelay = time.Second
	if start == nil {
		start = plainStart
	}
	waitc, err := start(cmd)
	if err != nil {
		return outcome{exitCode: -1, err: err, dur: time.Since(began)}
	}
	var werr error
	timedOut := false
	select {
	case werr = <-waitc:
	case <-tctx.Done():
		timedOut = ctx.Err() == nil
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		werr = <-waitc
	}
	o := outcome{exitCode: 0, stdout: out.String(), stderr: errb.String(), timedOut: timedOut, dur: time.Since(began)}
	var ee *exec.ExitError
	switch {
	case timedOut || ctx.Err() != nil:
		o.exitCode = -1
	case errors.As(werr, &ee):
		o.exitCode = ee.ExitCode()
	case werr != nil:
		o.exitCode, o.err = -1, werr
	}
	return o
}

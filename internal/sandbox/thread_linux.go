//go:build linux

package sandbox

import (
	"fmt"
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"
)

// startConfined confines one locked OS thread with spec's ruleset, starts
// cmd from it, and waits for cmd on it. The goroutine never unlocks the
// thread, so the runtime ends the thread when the goroutine returns: no
// other goroutine ever runs confined. The thread lives as long as cmd, so
// cmd's parent-death signal (which follows the thread that started it)
// fires only when olly itself dies.
func startConfined(cmd *exec.Cmd, spec Spec, grants []Grant) (<-chan error, error) {
	fd, flags, err := rulesetFD(spec, grants)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	return startOnThread(cmd, func() error { return confineThread(fd, flags) })
}

// startOnThread runs setup (if any) on a locked OS thread, starts cmd
// from it and waits for cmd on it; it returns once cmd has started (or
// failed to). The thread is never unlocked, so the runtime ends it with
// the goroutine: whatever setup did to it dies with it.
func startOnThread(cmd *exec.Cmd, setup func() error) (<-chan error, error) {
	started := make(chan error, 1)
	waitc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if setup != nil {
			if err := setup(); err != nil {
				started <- err
				return
			}
		}
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		waitc <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return waitc, nil
}

// confineThread applies the ruleset to the calling thread only (no
// LANDLOCK_RESTRICT_SELF_TSYNC): no_new_privs and the Landlock domain
// are per-thread attributes a fork inherits.
func confineThread(fd int, flags uint32) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox: set no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(fd), uintptr(flags), 0); errno != 0 {
		return fmt.Errorf("sandbox: landlock_restrict_self: %w", errno)
	}
	return nil
}

package shell

import (
	"context"
	"os"
	"slices"

	"github.com/olly-agent/olly/internal/safety"
	"github.com/olly-agent/olly/internal/sandbox"
)

// Prestart starts the session's bash in the background, ahead of its
// first command, so that what starting it costs (checking bash, the
// sandbox's rules, the mount-namespace helper, bash itself) overlaps
// something else (the model's first answer) instead of delaying the
// first command. opts.Policy and opts.Writable are those the first
// command is expected to run with (a command that needs another sandbox
// gets a new bash, as always).
//
// It returns at once. The goroutine it starts holds the shell as a
// command does: a command that comes meanwhile waits for it and then
// uses the bash it started; Close waits for it and ends what it started.
// When a command already holds the shell, or a bash that could run such a
// command is running, it does nothing; a bash that could not (another
// sandbox, or one the next command would replace anyway) is replaced now,
// its state carried over as always. A failure is not reported here: the first command meets it
// again and reports it exactly as without Prestart.
func (s *Shell) Prestart(opts RunOptions) {
	select {
	case s.sem <- struct{}{}:
	default:
		return // a command (or Close) holds the shell; it starts bash itself
	}
	select {
	case <-s.closing:
		s.unlock()
		return
	default:
	}
	// Added while holding sem: Close takes sem before it waits for wg.
	s.wg.Go(func() {
		defer s.unlock()
		s.prestart(opts)
	})
}

// prestart is Prestart's work; the caller holds sem.
func (s *Shell) prestart(opts RunOptions) {
	if s.prepare() != nil || s.closed() {
		return
	}
	s.markNestedStale()
	before := s.proc
	if _, err := s.pick(s.wantSpec(opts.Policy, opts.Writable), s.cwd); err != nil || s.proc == before {
		return
	}
	s.warm(opts)
}

// warmTimeout bounds the warm-up command; past it the bash is stopped as
// a command's would be, and the first command starts another.
const warmTimeout = saveWait

// warm passes the bash prestart just started one empty command through
// the whole path a command takes (the request, the output FIFO, bash's
// read, cd, eval and redirections, the D frame and, as the session's
// first command is, the save of its state), and waits for the save. A
// fresh bash is slow at its first two commands: after the version frame
// checkBash waits for, the driver still lists bash's variables, and the
// session's first command is always followed by a save (the state file
// does not exist yet), which the second command waits for. In traced
// peer runs these were most of why the first iterations were the slowest
// of a run (docs/performance.md, "First iterations and GC"); done here,
// they overlap the first model request instead.
//
// The command is empty: nothing of the state the bash restored (a
// function of the session's, whatever its name) runs, and the state is
// the same after it. The result is dropped, and what the first command's
// result says about its bash (a fresh start, what the sandbox could not
// protect) is left for it: warm touches neither flag.
func (s *Shell) warm(opts RunOptions) {
	if fi, err := os.Stat(s.cwd); err != nil || !fi.IsDir() {
		return // the first command moves to the primary root and says so
	}
	r, err := s.start("", safety.ShellFacts{Stateless: true}, s.cwd, opts.Policy, opts.Writable, nil)
	if err != nil {
		return
	}
	res := &Result{ExitCode: -1, StartCwd: s.cwd, Cwd: s.cwd}
	why := s.wait(context.Background(), r, warmTimeout, res)
	s.finish(r, why, res)
	if p := s.proc; p != nil && !p.dead() {
		_, _ = p.waitSaved(saveWait, s.closing) // Close need not wait for it
	}
}

// markNestedStale searches again for nested repositories in the places of
// each live workspace-write bash (the turn's Prestart runs in the
// background, before the turn's first command): one found now that its
// bash's search did not find (a clone made since that bash started,
// which its rules and mounts do not cover, or a folder now unreadable)
// makes that bash stale, so the command gets a new bash that protects
// it. Repositories gone since are no reason: protecting more is safe.
func (s *Shell) markNestedStale() {
	for _, p := range []*bashProc{s.proc, s.idle} {
		if p == nil || p.nested == nil || p.nestedStale || p.dead() || p.spec.Policy != sandbox.WorkspaceWrite {
			continue
		}
		now := sandbox.NestedRepositories(p.spec)
		isNew := func(g string) bool { return !slices.Contains(p.nested.Git, g) && !slices.Contains(p.nested.Unread, g) }
		if slices.ContainsFunc(now.Git, isNew) || slices.ContainsFunc(now.Unread, isNew) {
			p.nestedStale = true
		}
	}
}

// closed reports whether Close has begun.
func (s *Shell) closed() bool {
	select {
	case <-s.closing:
		return true
	default:
		return false
	}
}

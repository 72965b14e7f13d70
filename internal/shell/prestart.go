package shell

import (
	"slices"

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
	_, _ = s.pick(s.wantSpec(opts.Policy, opts.Writable), s.cwd)
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

package shell

import (
	"path/filepath"
	"time"

	"github.com/olly-agent/olly/internal/sandbox"
)

// A session keeps up to two live bash processes, one per sandboxed policy:
// the read-only one (commands that run without asking) and the
// workspace-write one. A command under the other policy than the
// current bash's runs in the other bash (started the first time), and
// the current one waits, idle, for the next command under its policy,
// instead of being replaced at every switch. The session's state (cwd,
// variables, functions, aliases) follows the commands from one bash to
// the other: before a bash runs a command, it takes over the newest state
// if the other bash holds a newer one (the sync file, see driver.bash).
// An unsandboxed bash is never kept idle, nor kept beside one: outside
// the sandbox there is one bash, as before.

// saveWait bounds how long a bash that is about to wait idle may take to
// finish the save its last command announced; past it the bash is
// stopped instead, and its state taken as when it is replaced.
const saveWait = 5 * time.Second

// pick makes s.proc a bash that can run a command that asks for the
// sandbox want (wantSpec), and returns the spec that bash runs under: the
// current one; or the idle one, if it is of that sandbox (the current one
// then waits idle in its place if it is the other sandboxed policy's); or
// a new one, under want pinned (pinSpec).
func (s *Shell) pick(want sandbox.Spec, dir string) (sandbox.Spec, error) {
	pin := pinning{want: want}
	cur := s.proc
	if cur != nil && fits(cur, &pin) {
		return cur.spec, nil
	}
	s.proc = nil
	var next *bashProc
	if q := s.idle; q != nil && fits(q, &pin) {
		next, s.idle = q, nil
	}
	if cur != nil {
		if parkable(cur, want) && s.checkpoint(cur) {
			s.dropIdle() // at most one idle bash
			s.idle = cur
		} else {
			s.drop(cur, nil)
		}
	}
	if q := s.idle; q != nil && (want.Policy == sandbox.Unsandboxed || q.spec.Policy == want.Policy) {
		// Outside the sandbox one bash, as before; an idle bash of this
		// policy that cannot run the command is stale.
		s.dropIdle()
	}
	if next == nil {
		spec, lost := pin.spec()
		p, err := s.startProc(spec, dir)
		if err != nil {
			return sandbox.Spec{}, err
		}
		p.want, p.pinLost = want, lost
		next = p
	}
	s.proc = next
	return next.spec, nil
}

// pinning is a command's wanted sandbox, pinned at most once (pinSpec
// resolves every place: only a new bash, or a bash started for another
// request, needs it).
type pinning struct {
	want   sandbox.Spec
	pinned *sandbox.Spec
	lost   bool
}

func (p *pinning) spec() (sandbox.Spec, bool) {
	if p.pinned == nil {
		spec, lost := pinSpec(p.want)
		p.pinned, p.lost = &spec, lost
	}
	return *p.pinned, p.lost
}

// fits reports whether p can run a command that asks for pin.want. A bash
// started for the same request, all of whose places were pinned then,
// can, as long as its stamps hold: its rules are fixed to the inodes
// it started with, and a place replaced since (by a link, or by another
// directory) changes its stamp. Any other bash is compared with the
// request pinned now, as a new bash would get it.
func fits(p *bashProc, pin *pinning) bool {
	if p.dead() || p.nestedStale || p.spec.Policy != pin.want.Policy {
		// (A bash of the other policy never fits: no need to pin the
		// request, an lstat per path component, to find that out at every
		// switch between the read-only and the workspace-write bash.)
		return false
	}
	// (The read-only bash may write only its own folders: a place of the
	// workspace-write request lost to pinning is no reason to pin again.)
	lost := p.pinLost && p.spec.Policy == sandbox.WorkspaceWrite
	if lost || !sameSpec(p.want, pin.want) {
		if spec, _ := pin.spec(); !sameSpec(p.spec, spec) {
			return false
		}
	}
	return !stampsChanged(p.stamps)
}

// parkable reports whether p, the current bash, may wait idle while a
// command under spec runs in the other sandboxed policy's bash.
func parkable(p *bashProc, spec sandbox.Spec) bool {
	return p.spec.Policy != sandbox.Unsandboxed && spec.Policy != sandbox.Unsandboxed &&
		p.spec.Policy != spec.Policy && !p.dead() && !p.nestedStale && !stampsChanged(p.stamps)
}

// checkpoint makes STATE_DIR/state the newest state when p, about to wait
// idle, holds it: the slot its last save wrote (waiting for a save its
// last command announced). false: p must be stopped instead.
func (s *Shell) checkpoint(p *bashProc) bool {
	if p.gen < s.gen {
		return true // the session's state file is newer already
	}
	slot, ok := p.waitSaved(saveWait, nil)
	switch {
	case !ok:
		return false
	case slot < 0:
		return true // never saved: it holds what it restored from the state file
	}
	p.mu.Lock()
	save := keptSave{p, p.savedTok}
	p.mu.Unlock()
	if save == s.kept {
		// The state file holds this very save already (p went idle after
		// it before, and ran only commands that skipped the save since).
		return true
	}
	if copyState(filepath.Join(p.dir, stateFile(slot)), filepath.Join(s.dir, "state")) != nil {
		return false
	}
	s.tookState(p.spec.Policy)
	s.kept = save
	return true
}

// keptSave names one save of one bash: the token of the command after
// which it saved (unique to that command).
type keptSave struct {
	p   *bashProc
	tok string
}

// syncInto copies the session's newest state into p's folder when p,
// about to run a command, is behind it, and returns the request's sync
// flag ("1", or "" when p is up to date).
func (s *Shell) syncInto(p *bashProc) (string, error) {
	// Both bashes are sandboxed (an unsandboxed one is never kept beside
	// another), so either may take the state the other saved; an
	// unsandboxed bash never takes one (restoreInto decides for it).
	if p.gen >= s.gen || !s.hasState || p.spec.Policy == sandbox.Unsandboxed {
		return "", nil
	}
	flag := "1"
	if s.handsData(p.spec.Policy) {
		// A read-only bash's state: its variables as data only ("d").
		note, err := s.dataState(filepath.Join(s.dir, "state"), filepath.Join(p.dir, "sync"))
		if err != nil {
			// Not taken: p keeps its own state.
			p.handNote = dataFailed(err)
			return "", nil
		}
		p.handNote, flag = note, "d"
	} else if err := copyState(filepath.Join(s.dir, "state"), filepath.Join(p.dir, "sync")); err != nil {
		return "", err
	}
	// What p saved before is older than what it takes now: until it
	// saves again (the command is followed by a save), the session's
	// state file is its newest complete state.
	p.mu.Lock()
	p.saved, p.savedTok = -1, ""
	p.mu.Unlock()
	p.saveTok = ""
	return flag, nil
}

// dropIdle stops the idle bash, if any, and keeps nothing from its
// folder: checkpoint already copied its state when it went idle, and
// since then a job its commands left may have rewritten that folder.
func (s *Shell) dropIdle() {
	if q := s.idle; q != nil {
		s.idle = nil
		q.stop(s.m.opts.KillGrace)
		s.keepState(q, -1)
	}
}

func stateFile(slot int) string {
	if slot == 1 {
		return "state1"
	}
	return "state0"
}

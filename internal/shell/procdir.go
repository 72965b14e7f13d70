package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/olly-agent/olly/internal/sandbox"
)

// Each bash of a session gets a state folder of its own, STATE_DIR/b<n>,
// for its request, its commands' output FIFOs, its saved state and its
// exit record; only that bash's sandbox may write it (withOwnDir), and the
// session's folder itself only olly. So nothing an earlier bash left
// running (a background job of a sandboxed command) can plant a request,
// a state file or a symbolic link in place of a FIFO for a later bash, in
// particular for an unsandboxed one a person approved. Between two bashes
// olly keeps the newest complete state in STATE_DIR/state (keepState) and
// copies it into the next bash's folder only if that bash may trust it
// (restoreInto).

// freshNote tells the model that an unsandboxed command did not get the
// state sandboxed commands left.
const freshNote = "this command ran outside the sandbox in a new shell that did not take over the variables, functions and aliases of the earlier sandboxed commands (only the working directory): a sandboxed command must not be able to change what runs outside the sandbox; set up again in this command what it needs (e.g. source a virtualenv)"

// maxStateBytes bounds the saved state olly copies from one bash to the
// next: far more than any real session's variables and functions.
const maxStateBytes = 64 << 20

// newProcDir creates the state folder of the session's next bash.
func (s *Shell) newProcDir() (string, error) {
	s.procN++
	dir := filepath.Join(s.dir, "b"+strconv.Itoa(s.procN))
	_ = os.RemoveAll(dir)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", fmt.Errorf("shell: create state directory: %w", err)
	}
	return dir, nil
}

// withOwnDir is spec with the bash's own folder writable (the read-only
// policy may write only that: sandbox.Spec.Own's first entry).
func withOwnDir(spec sandbox.Spec, own string) sandbox.Spec {
	if spec.Policy == sandbox.Unsandboxed {
		return spec
	}
	spec.Own = append([]string{own}, spec.Own...)
	return spec
}

// restoreInto copies the session's last saved state into own, the folder
// of a bash about to start under spec, and returns the slot argument and
// environment for driver.bash. An unsandboxed bash never restores a state
// a sandboxed bash wrote (its functions, aliases, PATH, LD_PRELOAD,
// BASH_ENV, PROMPT_COMMAND… would run outside the sandbox in a command a
// person approved for something else): it starts from olly's base
// environment and the session's directory only, and fresh is true.
//
// A state a read-only bash saved reaches a bash that is not read-only as
// data only (handover.go): restore "d", the variables olly wrote from it
// into own/data, after ("0d") the newest state a bash that was not
// read-only saved, if any, for its functions and aliases; note says what
// was left behind.
func (s *Shell) restoreInto(own string, spec sandbox.Spec) (restore string, env []string, fresh bool, note string) {
	if !s.hasState {
		return "", s.m.baseEnv, false, ""
	}
	if spec.Policy == sandbox.Unsandboxed && s.stateConfined {
		return "", s.m.baseEnv, true, ""
	}
	if s.handsData(spec.Policy) {
		note, err := s.dataState(filepath.Join(s.dir, "state"), filepath.Join(own, "data"))
		slot := "0d"
		if err != nil {
			note, slot = dataFailed(err), "0" // only the newest trusted state, if any
		}
		if s.hasWState && copyState(filepath.Join(s.dir, "wstate"), filepath.Join(own, "state0")) == nil {
			return slot, restartEnv(s.m.baseEnv), false, note
		}
		if err != nil {
			return "", s.m.baseEnv, false, note
		}
		return "d", s.m.baseEnv, false, note
	}
	if err := copyState(filepath.Join(s.dir, "state"), filepath.Join(own, "state0")); err != nil {
		return "", s.m.baseEnv, true, ""
	}
	return "0", restartEnv(s.m.baseEnv), false, ""
}

// keepState takes, from the folder of bash p that has ended, the newest
// complete state it saved (slot, -1 for none) into the session's folder,
// then removes p's folder.
func (s *Shell) keepState(p *bashProc, slot int) {
	defer func() { _ = os.RemoveAll(p.dir) }()
	if slot < 0 {
		return
	}
	s.kept = keptSave{} // state is rewritten, or may be half written
	if err := copyState(filepath.Join(p.dir, "state"+strconv.Itoa(slot)), filepath.Join(s.dir, "state")); err != nil {
		return
	}
	s.tookState(p.spec.Policy)
}

// readExitRecord reads the exit record bash p's EXIT trap wrote, refusing
// anything but a regular file of at most 1 MiB (readStateFile).
func readExitRecord(p *bashProc) ([]byte, bool) {
	b, err := readStateFile(filepath.Join(p.dir, "exit"), 1<<20)
	return b, err == nil
}

package shell

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// loadState takes over the state the command's bash saved, if it saved it.
func (s *Shell) loadState(r *run, why stopReason, res *Result) {
	defer func() { res.Cwd = s.cwd }()
	ok, err := os.ReadFile(filepath.Join(s.dir, "out.ok"))
	if err != nil || string(ok) != r.token {
		s.noteUnsaved(why, res)
		return
	}
	env, err1 := os.ReadFile(filepath.Join(s.dir, "out.env"))
	cwd, err2 := os.ReadFile(filepath.Join(s.dir, "out.cwd"))
	err3 := os.Rename(filepath.Join(s.dir, "out.vars"), filepath.Join(s.dir, "vars"))
	if err := errors.Join(err1, err2, err3); err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("the shell's state could not be read (%v); the next command starts from the state before this one", err))
		return
	}
	s.env = cleanEnv(splitEnv(env))
	end := string(cwd)
	if end == "" || !filepath.IsAbs(end) {
		return
	}
	if s.m.roots.contains(end) {
		s.setCwd(end)
		return
	}
	s.setCwd(s.m.roots.primary())
	res.CwdReset = true
	res.Notes = append(res.Notes, fmt.Sprintf("the command ended in %s, outside the workspace; the next command starts in %s", end, s.cwd))
}

func (s *Shell) noteUnsaved(why stopReason, res *Result) {
	switch {
	case why != stopNone:
		// Stopped before bash could save: say nothing more than the stop.
	case res.Signal != "":
		res.Notes = append(res.Notes, fmt.Sprintf("bash was ended by %s before it saved its state; the next command starts in %s with the variables from before this one", res.Signal, s.cwd))
	default:
		res.Notes = append(res.Notes, fmt.Sprintf("the command replaced the shell (exec) or exited from a trap, so its cd and variables were not kept; the next command starts in %s", s.cwd))
	}
}

// splitEnv parses the NUL-separated NAME=VALUE pairs the wrapper saved.
func splitEnv(b []byte) []string {
	var env []string
	for _, kv := range strings.Split(string(b), "\x00") {
		if i := strings.IndexByte(kv, '='); i > 0 {
			env = append(env, kv)
		}
	}
	return env
}

package shell

import "strings"

// forcedEnv returns the entries set for every command, over whatever the
// session's state says, so that nothing a command starts waits for a
// person at a terminal that is not there (stdin is /dev/null and there is
// no controlling terminal). docs/shell.md explains each entry.
func forcedEnv() []string {
	return []string{
		"OLLY=1",                         // scripts can tell they run under olly
		"TERM=dumb",                      // no cursor addressing, no full-screen programs
		"NO_COLOR=1",                     // no-color.org: fewer escape sequences to strip
		"PAGER=cat",                      // man, systemctl, psql…: print instead of paging
		"GIT_PAGER=cat",                  // git log/diff/show: print instead of paging
		"GIT_TERMINAL_PROMPT=0",          // git fails instead of asking for credentials
		"GIT_EDITOR=true",                // commit/merge/tag keep the default message or abort instead of opening an editor
		"DEBIAN_FRONTEND=noninteractive", // apt/dpkg take defaults instead of asking
	}
}

// droppedEnv returns the names never passed on from the session's
// environment: BASH_ENV and ENV name files bash would source first, and
// SHELLOPTS and BASHOPTS turn on options such as errexit, each silently
// changing every command; OLLY_SHELL_RUN, PWD and SHLVL olly sets itself.
func droppedEnv() []string {
	return []string{"BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "OLLY_SHELL_RUN", "PWD", "SHLVL"}
}

// envName returns the name part of a NAME=VALUE entry.
func envName(kv string) string {
	name, _, _ := strings.Cut(kv, "=")
	return name
}

// isManaged reports whether olly sets or removes name itself.
func isManaged(name string) bool {
	for _, kv := range forcedEnv() {
		if envName(kv) == name {
			return true
		}
	}
	for _, d := range droppedEnv() {
		if d == name {
			return true
		}
	}
	return false
}

// cleanEnv returns env without the entries olly manages, the last value of
// a repeated name winning (as it does for the shell).
func cleanEnv(env []string) []string {
	seen := make(map[string]int, len(env))
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name := envName(kv)
		if name == "" || isManaged(name) {
			continue
		}
		if i, ok := seen[name]; ok {
			out[i] = kv
			continue
		}
		seen[name] = len(out)
		out = append(out, kv)
	}
	return out
}

// commandEnv is the environment of one command's bash: the session's
// variables, the forced entries, the shell level olly itself was started
// with, the logical working directory (so a cd through a symlink keeps its
// name) and the command's marker.
func commandEnv(session []string, shlvl, cwd, token string) []string {
	forced := forcedEnv()
	env := make([]string, 0, len(session)+len(forced)+3)
	env = append(env, session...)
	env = append(env, forced...)
	if shlvl != "" {
		env = append(env, "SHLVL="+shlvl)
	}
	return append(env, "PWD="+cwd, "OLLY_SHELL_RUN="+token)
}

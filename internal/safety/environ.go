package safety

import "strings"

// The environment can hold secrets (API keys, tokens), so printing it is
// never silently read-only: it is medium, which asks in ask mode and
// shows in the record. olly also runs commands with a cleaned environment
// (see docs/safety.md), which is what actually keeps the secrets out.

// printsEnv records a command that prints environment or shell variables
// (printenv, env, export, declare -p, set, compgen -v).
func (a *analyzer) printsEnv(cmd, name string) {
	a.add(Medium, "print-environment", sentence("Prints environment variables (%s), which can hold secrets such as API keys", name), cmd, name)
}

// readsEnviron catches a process's environment read from /proc
// (cat /proc/self/environ, tr '\0' '\n' < /proc/1/environ).
func (a *analyzer) readsEnviron(c *call) {
	check := func(f field) bool {
		if strings.HasPrefix(f.value, "/proc/") && strings.HasSuffix(f.value, "/environ") {
			a.add(Medium, "print-environment", sentence("Reads %s, a process's environment, which can hold secrets such as API keys", f.src), c.text, f.src)
			return true
		}
		return false
	}
	for _, f := range c.args[1:] {
		if check(f) {
			return
		}
	}
	if c.rd != nil && c.rd.stdinFile != nil {
		check(*c.rd.stdinFile)
	}
}

package shell

// Environ is the environment of a program olly starts for the person
// outside a shell session (hooks): env without the variables olly manages
// or the policy drops (secrets, OLLY_*), plus the entries every command
// gets (TERM=dumb, PAGER=cat, OLLY=1…) — the same rules as a command's.
func (p EnvPolicy) Environ(env []string) []string {
	return append(p.filter(cleanEnv(env)), forcedEnv()...)
}

package shell

// A command that switches on noexec (set -n, set -o noexec, shopt -so
// noexec) makes the session's bash read and execute nothing more, olly's
// own loop included, so it would hang until its timeout and then cost the
// session its bash. Such a command is found statically (safety.SetsNoexec,
// from the same parse as the command's other checks) and run in a
// subshell: the noexec ends with it. (One that hides it, eval "set -n",
// is not found: it times out, and the next command gets a new bash.)

// noexecNote tells the model why the command's cd and variables were not
// kept.
const noexecNote = "the command may switch on noexec (set -n), which would stop the session's shell from running anything more (or olly cannot parse it to tell), so it ran in a subshell: its cd, variables, functions and aliases do not carry over"

// runInSubshell wraps command so that it runs in a subshell of the
// session's bash (on lines of their own, so a trailing comment or a
// here-document stays whole).
func runInSubshell(command string) string { return "(\n" + command + "\n)" }

// Package shell runs the agent's terminal commands: one shell per session,
// whose working directory, variables, functions and aliases carry over
// from command to command as in a terminal, with stdin closed, a timeout
// and cancellation that kill the command's whole process tree, and output
// that streams live and is kept for the model in bounded memory (sanitized
// of terminal escapes, cut to its first and last lines, the full text in
// an artifact file).
//
// Every command runs in a fresh bash that restores the session's saved
// state first and saves it afterwards (wrapper.bash), so a command that
// kills its shell, or is killed, cannot break the next one. docs/shell.md
// describes the behaviour in full.
//
// Process discovery uses /proc and is Linux-only; elsewhere commands are
// stopped by process group alone.
package shell

// Package shell runs the agent's terminal commands: one shell per session,
// whose working directory, variables, functions and aliases carry over
// from command to command as in a terminal, with stdin closed, a timeout
// and cancellation that kill the command's whole process tree, and output
// that streams live and is kept for the model in bounded memory (sanitized
// of terminal escapes, cut to its first and last lines, the full text in
// an artifact file).
//
// A session's commands run one after another in one long-lived bash
// (driver.bash), fed through a wake pipe and a request file, answering on
// a frame pipe, each command's output on a FIFO of its own. bash saves the
// session's state after each command, so a command that kills its shell,
// or is killed, cannot break the next one: that one gets a new bash with
// the last saved state. docs/shell.md describes the behaviour in full.
//
// Process discovery uses /proc and is Linux-only; elsewhere commands are
// stopped by process group alone.
package shell

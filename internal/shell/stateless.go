package shell

import "github.com/olly-agent/olly/internal/safety"

// Saving the session's state after a command (declare -p of every
// variable, every function and alias) is most of what a command costs the
// long-lived bash. A command that cannot change that state does not need
// it: olly asks bash to skip the save for commands safety finds stateless
// (safety.ShellFacts, from the parse of the command's safety check: only
// programs, and a few harmless builtins, run with literal names and
// arguments that neither assign nor run code), provided bash finds none
// of those names to be one of the session's functions or aliases just
// before it runs the command. Anything else is saved.

// commandFacts returns what safety found about command: the caller's
// check when it is about this very command (the terminal tool checked it
// already), else a parse of its own (safety.Facts: the noexec and
// stateless answers only, not the whole check).
func commandFacts(command string, checked *safety.Checked) safety.ShellFacts {
	if checked != nil && checked.Command == command {
		return checked.ShellFacts
	}
	return safety.Facts(command)
}

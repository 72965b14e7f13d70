package agent

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/olly-agent/olly/internal/tools"
)

// Review modes may run read-only git commands and nothing else (the seed
// said so only in the prompt, and its review terminal was broken). A
// command runs when every simple command in it is git with a reading
// subcommand, or a text filter fed by one (git log | head), and
// safety.ReadOnly agrees; anything else is refused before it runs, with a
// result telling the model (gitCommands).

// reviewGitSubcommands are the git subcommands review may use.
func reviewGitSubcommands() map[string]bool {
	return setOf("status", "log", "diff", "show", "blame", "shortlog", "describe", "rev-parse", "rev-list",
		"ls-files", "ls-tree", "cat-file", "grep", "merge-base", "branch", "tag", "remote", "stash",
		"reflog", "for-each-ref", "name-rev", "show-ref", "show-branch", "whatchanged", "diff-tree",
		"check-ignore", "cherry")
}

// reviewFilters are the programs that may take git's output.
func reviewFilters() map[string]bool {
	return setOf("head", "tail", "wc", "grep", "sort", "uniq", "cut")
}

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// gitCommands is review's terminal rule (tools.Env.Commands): read-only
// git commands only. The terminal tool applies it where the command would
// run, with the safety analysis, and refuses the rest before they run.
func gitCommands(mode string) *tools.CommandPolicy {
	return &tools.CommandPolicy{Mode: mode, Allow: func(command string) string {
		if why := gitOnly(command); why != "" {
			return fmt.Sprintf("Not run: in %s mode only read-only git commands may run (git log, show, diff, status, blame, grep, …, optionally piped into head, tail, grep, wc, sort, uniq or cut), and %s. Use the read and search tools for everything else.", mode, why)
		}
		return ""
	}}
}

// gitOnly checks that command is made of git's reading subcommands and
// filters of their output; it returns why not, for the model.
func gitOnly(command string) string {
	if strings.TrimSpace(command) == "" {
		return "the command is empty"
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return "the command could not be parsed"
	}
	subs, filters := reviewGitSubcommands(), reviewFilters()
	why, gits := "", 0
	syntax.Walk(f, func(n syntax.Node) bool {
		ce, ok := n.(*syntax.CallExpr)
		if !ok || why != "" || len(ce.Args) == 0 {
			return why == ""
		}
		name := ce.Args[0].Lit()
		switch {
		case name == "git":
			sub := gitSubcommand(ce.Args[1:])
			if !subs[sub] {
				why = fmt.Sprintf("git %s is not a reading subcommand review may use", sub)
				if sub == "" {
					why = "git needs a subcommand"
				}
			}
			gits++
		case filters[name]:
		case name == "":
			why = "a command name is computed or quoted"
		default:
			why = name + " is not git"
		}
		return why == ""
	})
	if why == "" && gits == 0 {
		why = "it runs no git command"
	}
	return why
}

// gitSubcommand skips git's global options (-C dir, --git-dir dir, …) and
// returns the subcommand ("" when there is none or it is computed).
func gitSubcommand(args []*syntax.Word) string {
	for i := 0; i < len(args); i++ {
		a := args[i].Lit()
		switch {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
}

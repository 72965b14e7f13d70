package trust

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Decisions a person can give about a project program.
const (
	// DecisionTrust: run it, as it is now (Store.Trust).
	DecisionTrust = "trust"
	// DecisionNotNow: do not run it, and do not ask again in this
	// session; nothing is recorded.
	DecisionNotNow = "not_now"
	// DecisionNever: do not run it and never ask again while it has this
	// fingerprint (Store.Decline).
	DecisionNever = "never"
)

// Request is one project program (an MCP server of .mcp.json, a project
// hook file) that would run in a workspace but waits for a person's
// decision, with exactly what it would run: what a trust prompt shows.
type Request struct {
	// ID names the request (kind, name and fingerprint): an answer names
	// it, and one to a program that changed meanwhile is refused.
	ID string `json:"id"`
	// Kind is KindMCP or KindHook; Name the server's name or the hook
	// file's path in the workspace; Source the file that asks for it.
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Source string `json:"source"`
	// Workspace is the workspace root the trust would apply to.
	Workspace   string `json:"workspace"`
	Fingerprint string `json:"fingerprint"`
	// Runs are the commands (or URLs) that would run.
	Runs []Run `json:"runs"`
	// Files are the project files the program runs whose content is part
	// of the fingerprint: editing one asks again.
	Files []string `json:"files,omitempty"`
}

// Run is one thing a project program runs.
type Run struct {
	// Event and Matcher say when a hook runs (empty for servers).
	Event   string `json:"event,omitempty"`
	Matcher string `json:"matcher,omitempty"`
	// Command and Args are the program: a server's command and its
	// arguments, a hook's shell command (run with bash -c).
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	// Line is a server's Command and Args as one shell command line
	// (CommandLine): what a frontend shows, so that none quotes words
	// its own way. Empty for a hook (its Command is a shell line already)
	// and for a URL server.
	Line string `json:"line,omitempty"`
	// Env is a server's added environment, as NAME=value.
	Env []string `json:"env,omitempty"`
	// URL is an HTTP or SSE server's address (Transport its type), and
	// Headers the names of the headers sent (values left out).
	URL       string   `json:"url,omitempty"`
	Transport string   `json:"transport,omitempty"`
	Headers   []string `json:"headers,omitempty"`
	// Timeout is a hook's time limit.
	Timeout string `json:"timeout,omitempty"`
}

// CommandLine joins argv (a program and its arguments) for a person to
// read, as a POSIX shell would take it: a word of anything but letters,
// digits and @%+=:,./_- is single-quoted (an empty word too), a single
// quote in it closed, escaped and opened again; so is a program name a
// shell would read as an assignment (A=b) or a reserved word (if). Every
// frontend shows a server's command this way: the service puts it in
// Run.Line.
func CommandLine(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		plain := a != "" && strings.Trim(a, shellSafe) == ""
		if i == 0 && (strings.Contains(a, "=") || reserved(a)) {
			plain = false
		}
		if plain {
			b.WriteString(a)
			continue
		}
		b.WriteString("'" + strings.ReplaceAll(a, "'", `'\''`) + "'")
	}
	return b.String()
}

// shellSafe are the bytes a shell word may hold unquoted (CommandLine).
const shellSafe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-"

// reserved reports whether a command's first word w would start a
// compound command (or be an error) rather than name a program: a bash
// reserved word. syntax.IsKeyword's list (mvdan.cc/sh v3.14.1) lacks
// "elif", which bash refuses as a command's first word all the same.
func reserved(w string) bool { return syntax.IsKeyword(w) || w == "elif" }

// RequestID is the id of the request for name of kind with fingerprint.
func RequestID(kind, name, fingerprint string) string {
	return kind + ":" + name + "@" + shortFP(fingerprint)
}

func shortFP(fp string) string {
	if len(fp) > 16 {
		return fp[:16]
	}
	return fp
}

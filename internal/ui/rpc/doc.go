// Package rpc is the server side of olly's JSONL protocol (docs/rpc.md):
// `olly --mode rpc` speaks it on stdin and stdout, and the web UI speaks
// it over a WebSocket (internal/ui/web). Serve reads one command per line,
// answers each with a response, and streams the events of the session it
// works on — olly's own events and, mapped from them, the pi coding
// agent's lifecycle events, so pi's clients drive olly unchanged.
//
// The server is a thin frontend (DESIGN: frontends are thin): every
// command goes to the session service, the approval manager or a
// capability in Options, and every message on the wire is a type of the
// public package github.com/olly-agent/olly/rpcproto (events:
// github.com/olly-agent/olly/event). Store rows are converted to rpcproto
// types here (wire.go); nothing of internal/store is on the wire.
//
// Files:
//
//	server.go            Serve, Options, the read loop, responses, shutdown
//	protocol.go, lines.go decoding a command line; bounded line reading
//	commands.go          the command table: name → typed request and result
//	cmd_prompt.go        prompt (steer, follow-up), abort, compact, bash
//	cmd_session.go       new, switch, branch and name sessions; model, mode;
//	                     export_html
//	cmd_query.go         get_state, messages, stats, models, commands,
//	                     events, listing and searching sessions
//	cmd_changes.go       approvals, auto-approve, list_changes, review
//	cmd_fork.go          fork and get_fork_messages (pi's semantics)
//	parity.go            the pi commands olly answers like pi
//	follow.go            streaming a session's stored, then live, events
//	pimap.go, pimap_end.go, pimap_tools.go
//	                     olly's events → pi's lifecycle events
//	wire.go              store rows → rpcproto types
//
// docs/rpc.md is generated from the rpcproto types and the example
// exchanges of the tests (TestReferenceDoc), so it drifts from neither.
package rpc

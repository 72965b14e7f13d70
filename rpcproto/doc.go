// Package rpcproto is olly's JSONL protocol, one Go type per message: the
// ready frame, every command's request and result, the response envelope,
// and the pi coding agent's lifecycle events that olly also speaks. Olly's
// own events are the public event package's (github.com/olly-agent/olly/event).
//
// RPC mode (`olly --mode rpc`, internal/ui/rpc) writes these types on
// stdout and reads commands from stdin; the web UI speaks the same
// protocol over a WebSocket; the Go client (rpcclient) sends and reads
// them. docs/rpc.md, the reference for clients in other languages, is
// generated from them, so the three cannot disagree on a field.
//
// The package imports only the standard library and event, so a program
// embedding olly pulls in nothing of olly's internals: no database, no git,
// no shell parser. Nothing here is a database row: the server converts
// what it stores into these types.
//
// | file        | what                                                        |
// |-------------|-------------------------------------------------------------|
// | frames.go   | ProtocolVersion, the ready and response frames, event families |
// | commands.go | the command names (Cmd*)                                     |
// | messages.go | each command's request and result                            |
// | sessions.go | stored sessions, search results, queue counts               |
// | changes.go  | the review of the agent's changes (checkpoints, hunks)       |
// | pi.go       | the pi coding agent's messages and lifecycle events         |
package rpcproto

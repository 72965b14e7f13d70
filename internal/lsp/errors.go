package lsp

import (
	"errors"
	"fmt"
	"time"
)

// ErrClosed is returned after Close: the manager starts no more servers.
var ErrClosed = errors.New("language servers are shut down")

// UnavailableError says that the language's server is not installed (no
// command of the table is on PATH), or that it could not be started. Tools
// show it as an honest "no language server" result, never as "no errors".
type UnavailableError struct {
	Language string
	// Command is the server olly looked for; Install how to install it.
	Command string
	Install string
	// Err is why a found server could not be started; nil when none is
	// installed.
	Err error
}

func (e *UnavailableError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("the %s language server (%s) could not be started: %v", e.Language, e.Command, e.Err)
	}
	return fmt.Sprintf("no language server for %s (%s)", e.Language, e.Install)
}

// Unwrap returns the start failure.
func (e *UnavailableError) Unwrap() error { return e.Err }

// NoServerError says that no server in the table handles a file's kind
// (a README, a YAML file).
type NoServerError struct {
	// Path is the file asked about.
	Path string
}

func (e *NoServerError) Error() string {
	return fmt.Sprintf("no language server handles %s (olly knows servers for Go, Python, TypeScript/JavaScript, Rust and C/C++; lsp.servers adds others)", e.Path)
}

// TimeoutError says a server did not answer in time. The request was
// cancelled with $/cancelRequest.
type TimeoutError struct {
	Server string
	Method string
	After  time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s did not answer %s within %s", e.Server, e.Method, e.After.Round(time.Millisecond))
}

// ServerError is an error answer from a server (a request it rejects, or
// "no identifier at this position").
type ServerError struct {
	Server  string
	Method  string
	Code    int64
	Message string
}

func (e *ServerError) Error() string {
	return fmt.Sprintf("%s answered %s with an error: %s", e.Server, e.Method, e.Message)
}

// UnsupportedError says the server does not offer a feature (a server
// without call hierarchy, say).
type UnsupportedError struct {
	Server  string
	Feature string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s does not support %s", e.Server, e.Feature)
}

// CrashedError says the server exited unexpectedly too often to be
// restarted again in this session.
type CrashedError struct {
	Server   string
	Restarts int
	Last     error
}

func (e *CrashedError) Error() string {
	return fmt.Sprintf("%s crashed %d times and is not restarted again in this session (last exit: %v); see olly's log", e.Server, e.Restarts, e.Last)
}

// NotSettledError says a server did not report a file's diagnostics within
// the wait: the file was not checked, which is not the same as clean.
type NotSettledError struct {
	Server string
	Path   string
	After  time.Duration
}

func (e *NotSettledError) Error() string {
	return fmt.Sprintf("%s reported no diagnostics for %s within %s", e.Server, e.Path, e.After.Round(100*time.Millisecond))
}

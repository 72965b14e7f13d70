package lsp

import (
	"io"
	"log/slog"
	"os/exec"
	"time"
)

// Options configure a Manager. The zero value of each field takes the
// default named in its comment.
type Options struct {
	// Servers is the server table (default DefaultServers(); see
	// ServersWith for the lsp.servers setting).
	Servers []Server
	// LookPath finds a command (default exec.LookPath).
	LookPath func(string) (string, error)
	// Logger receives server log messages and lifecycle notes (default:
	// discarded). Nothing is ever written to stdout.
	Logger *slog.Logger
	// Env is the servers' environment (default: olly's own).
	Env []string

	// RequestTimeout bounds one request to a warm server (5s).
	RequestTimeout time.Duration
	// WarmupTimeout bounds requests while a server is still loading the
	// workspace (it reports progress, or started less than Warmup ago and
	// has answered nothing yet), and the first request of each method,
	// which may build an index (30s).
	WarmupTimeout time.Duration
	// Warmup is how long after its start a silent server counts as
	// loading (30s).
	Warmup time.Duration
	// StartTimeout bounds starting a server and its initialize handshake
	// (30s).
	StartTimeout time.Duration

	// DiagnosticsWait bounds the wait for a warm server's diagnostics of a
	// changed document (3s, the seed's waitForDiagnostics); the first
	// diagnostics of a new server may take WarmupDiagnosticsWait (20s).
	DiagnosticsWait       time.Duration
	WarmupDiagnosticsWait time.Duration
	// DiagnosticsQuiet is how long no further diagnostics must arrive
	// before a document's are taken as settled (150ms): servers often
	// publish twice, first the type errors, then analysis.
	DiagnosticsQuiet time.Duration
	// CheckSettle is how long after the last change the verification gate
	// lets the server work before reading diagnostics of documents it did
	// not re-publish (1.2s: gopls reports other packages' errors after 1s).
	CheckSettle time.Duration

	// ShutdownTimeout bounds the shutdown request (2s); ShutdownGrace is
	// how long a server may take to exit after "exit" before it is killed
	// (2s).
	ShutdownTimeout time.Duration
	ShutdownGrace   time.Duration

	// MaxRestarts bounds restarts after crashes within RestartWindow
	// (3 in 5m); RestartBackoff is the wait before the first restart,
	// doubled for each further one (500ms).
	MaxRestarts    int
	RestartWindow  time.Duration
	RestartBackoff time.Duration

	// MaxOpenDocuments caps the documents kept open per server (64); the
	// least recently used is closed first. IdleClose closes a document not
	// used for that long (10m).
	MaxOpenDocuments int
	IdleClose        time.Duration
	// MaxFileBytes is the largest file olly opens in a server (4 MiB).
	MaxFileBytes int64
	// MaxDiagnostics bounds the diagnostics listed per file (20).
	MaxDiagnostics int

	// ClientVersion is olly's version, sent in initialize.
	ClientVersion string
}

func (o Options) withDefaults() Options {
	if o.Servers == nil {
		o.Servers = DefaultServers()
	}
	if o.LookPath == nil {
		o.LookPath = exec.LookPath
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	dur := func(d *time.Duration, def time.Duration) {
		if *d <= 0 {
			*d = def
		}
	}
	dur(&o.RequestTimeout, 5*time.Second)
	dur(&o.WarmupTimeout, 30*time.Second)
	dur(&o.Warmup, 30*time.Second)
	dur(&o.StartTimeout, 30*time.Second)
	dur(&o.DiagnosticsWait, 3*time.Second)
	dur(&o.WarmupDiagnosticsWait, 20*time.Second)
	dur(&o.DiagnosticsQuiet, 150*time.Millisecond)
	dur(&o.CheckSettle, 1200*time.Millisecond)
	dur(&o.ShutdownTimeout, 2*time.Second)
	dur(&o.ShutdownGrace, 2*time.Second)
	dur(&o.RestartWindow, 5*time.Minute)
	dur(&o.RestartBackoff, 500*time.Millisecond)
	dur(&o.IdleClose, 10*time.Minute)
	if o.MaxRestarts <= 0 {
		o.MaxRestarts = 3
	}
	if o.MaxOpenDocuments <= 0 {
		o.MaxOpenDocuments = 64
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = 4 << 20
	}
	if o.MaxDiagnostics <= 0 {
		o.MaxDiagnostics = 20
	}
	return o
}

package lsp

import (
	"context"
	"time"
)

// ProbeResult says whether a language's server is installed and starts.
type ProbeResult struct {
	Server Server
	// Found is set when a command of the table is on PATH; Resolved
	// names it.
	Found    bool
	Resolved Resolved
	// Started is set when the server answered initialize; Info is the
	// name and version it reported.
	Started bool
	Info    string
	// Took is how long the start and handshake took.
	Took time.Duration
	// Err says why a found server did not start.
	Err error
}

// Probe starts srv's server in root, runs the initialize handshake and
// shuts the server down again: olly doctor's check that a language really
// works, not only that a command of that name exists.
func Probe(ctx context.Context, srv Server, root string, opts Options) ProbeResult {
	opts = opts.withDefaults()
	res, ok := srv.Resolve(opts.LookPath)
	r := ProbeResult{Server: srv, Found: ok, Resolved: res}
	if !ok {
		return r
	}
	if d, ok := ctx.Deadline(); ok && time.Until(d) < opts.StartTimeout {
		opts.StartTimeout = time.Until(d)
	}
	start := time.Now()
	c, err := startClient(ctx, &opts, srv, res, root, []WorkspaceFolder{{URI: FileURI(root), Name: "probe"}})
	r.Took = time.Since(start)
	if err != nil {
		r.Err = err
		return r
	}
	r.Started, r.Info = true, c.info
	c.shutdown()
	return r
}

package cli

import (
	"context"
	"fmt"
	"sync"

	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/mcp"
)

// mcpChecks is one line per configured MCP server: where it is
// configured, whether it may start (trust), whether it connects and how
// many tools it offers. A failing server is a warning: olly works without
// it.
func mcpChecks(ctx context.Context, opts *doctorOptions, cfg *config.Config) []check {
	if cfg == nil || opts.Workspace == nil {
		return nil
	}
	ws, err := opts.Workspace()
	if err != nil {
		return nil
	}
	m, errs := app.NewMCPManager(cfg, nil, app.SandboxSpec(cfg), ws, nil)
	defer m.Close()
	var out []check
	for _, err := range errs {
		out = append(out, check{Area: "mcp", Status: checkWarn, Detail: err.Error(), Fix: "fix the file named, or remove the entry"})
	}
	servers := m.Servers()
	lines := make([]check, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lines[i] = mcpCheck(ctx, opts, m, s)
		}()
	}
	wg.Wait()
	return append(out, lines...)
}

func mcpCheck(ctx context.Context, opts *doctorOptions, m *mcp.Manager, s mcp.Server) check {
	c := check{Area: "mcp " + s.Name}
	where := fmt.Sprintf("%s server (%s), %s", s.Source, s.File, s.Describe())
	if !m.Trusted(s) {
		c.Status, c.Detail = checkWarn, where+": not trusted in this workspace, so it does not start"
		c.Fix = "review the entry, then run `olly mcp trust " + s.Name + "`"
		return c
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	n, err := m.Connect(ctx, s.Name)
	if err != nil {
		c.Status, c.Detail = checkWarn, where+": "+err.Error()
		c.Fix = "check the command or URL with `olly mcp test " + s.Name + "`; its tools are missing until it connects"
		return c
	}
	trusted := ""
	if s.NeedsTrust() {
		trusted = ", trusted"
	}
	c.Status, c.Detail = checkOK, fmt.Sprintf("%s%s: connects, %d tools", where, trusted, n)
	return c
}

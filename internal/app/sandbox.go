package app

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/olly-agent/olly/internal/agent"
	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/sandbox"
	"github.com/olly-agent/olly/internal/shell"
	"github.com/olly-agent/olly/internal/store"
	"github.com/olly-agent/olly/internal/tools"
	"github.com/olly-agent/olly/internal/workspace"
)

// sandboxSpec is the template of every command's sandbox: the build caches
// and other writable folders (sandbox.writable and the caches the
// environment names) and the protected paths (olly's own folders, keys
// and credentials, sandbox.denyRead). Each shell adds its workspace roots,
// its state, its TMPDIR and the session's own scratch directory
// (ManagerOptions.ScratchDir): never the folder that holds every
// session's, where a command could put a link in place of its session's
// directory or touch another session's.
func (a *App) sandboxSpec() sandbox.Spec {
	home := sandbox.Home()
	paths := a.Config.Paths()
	env := sandbox.EnvCaches(os.Getenv)
	writable := append(sandbox.ExpandHome(a.Config.Sandbox.Writable, home), env...)
	deny := append(sandbox.DefaultDenyRead(home), paths.ConfigDir, paths.DataDir, paths.StateDir)
	deny = append(deny, sandbox.ExpandHome(a.Config.Sandbox.DenyRead, home)...)
	// Only the build caches (sandbox.writable's defaults, the ones the
	// environment names) are not searched for nested repositories; a
	// folder a person adds to sandbox.writable (~/work) is searched like
	// the workspace roots.
	known := append(sandbox.ExpandHome(config.DefaultStrings("sandbox.writable"), home), env...)
	caches := slices.DeleteFunc(slices.Clone(writable), func(w string) bool { return !slices.Contains(known, w) })
	return sandbox.Spec{Writable: writable, Caches: caches, DenyRead: deny, Network: a.Config.Sandbox.Network}
}

// shellOptions are the sandbox and environment parts of a workspace's
// shell manager.
func (a *App) shellOptions(o *shell.ManagerOptions) {
	o.Sandbox = a.Sandbox
	o.SandboxSpec = a.sandboxSpec()
	o.ScratchDir = a.scratchDir()
	o.EnvPolicy = shell.EnvPolicy{Keep: a.Config.Shell.Env.Keep, Drop: a.Config.Shell.Env.Drop}
	o.RunDir = filepath.Join(a.Config.Paths().StateDir, "shells")
}

// commandSandbox describes the sandbox to the terminal tool, for approval
// cards.
func (a *App) commandSandbox() tools.SandboxInfo {
	st := a.Sandbox.Status()
	return tools.SandboxInfo{Active: st.Active(), Mechanism: st.Mechanism, Network: a.Config.Sandbox.Network}
}

// SandboxStatus says whether commands are confined, and the approval mode
// that follows, in one line for the first line of a run.
func (a *App) SandboxStatus() string { return PolicySummary(a.Config, a.Sandbox) }

// PolicySummary is one line on the approval mode and the sandbox under
// settings cfg on this machine (sb nil: detect it), for the first line of a
// run, olly config list and olly doctor.
func PolicySummary(cfg *config.Config, sb *sandbox.Sandbox) string {
	if sb == nil {
		sb = sandbox.New("")
	}
	st := sb.Status()
	mode := approval.Policy{Mode: cfg.Approval.Mode, Sandboxed: st.Active()}.EffectiveMode()
	if !st.Active() {
		return fmt.Sprintf("approval mode %s (approval.mode %s) · no sandbox: %s; every command that is not read-only asks",
			mode, cfg.Approval.Mode, st.Reason)
	}
	net := "off"
	if cfg.Sandbox.Network {
		net = "on"
	}
	s := fmt.Sprintf("approval mode %s · sandbox %s, network %s", mode, st.String(), net)
	if mode == event.ApprovalModeAuto {
		s += " · commands up to medium severity run sandboxed without asking; high asks; critical always asks"
	} else {
		s += " · every command that is not read-only asks, then runs sandboxed"
	}
	return s
}

// prestartShell returns what starts the session's shell ahead of its
// first command (the workspace-write sandbox, which commands that change
// something run in), or nil when no such command can run without a
// person and none is there to approve it (print mode without a terminal,
// no --yes, not in auto mode): then the shell would start for nothing.
func (a *App) prestartShell(sh *shell.Shell, policy approval.Policy, ws *workspace.Workspace) func() {
	if policy.Unattended && !policy.Yes && !policy.AutoApproveCommands && policy.EffectiveMode() != event.ApprovalModeAuto {
		return nil
	}
	return func() { sh.Prestart(shell.RunOptions{Writable: ws.Dirs()}) }
}

// PrestartShell starts the shell of session sess (a new one may be only
// its ID and Workspace so far) in the background as soon as a frontend
// knows the session, its workspace and its approval policy: print mode
// before it lists the models and creates the session, the TUI and serve
// when they open one. Its start (the sandbox's rules, bash) then overlaps
// the rest of start-up and the first model request instead of delaying
// the first command. Nothing starts for a mode other than agent (the
// agent still starts it when such a turn offers the terminal), or when no
// command that changes something could run (prestartShell). Errors are
// left to the first command, which meets them again.
func (a *App) PrestartShell(sess *store.Session) {
	// Whatever the mode, the session's turns append events: the store's
	// committer prepares their statements now, while start-up has it idle
	// (store warm.go; toolEnv asks again, a no-op once they are prepared).
	a.Store.Warm()
	if sess == nil || (sess.Mode != "" && event.Mode(sess.Mode) != event.ModeAgent) {
		return
	}
	ws, err := a.openWorkspace(sess.Workspace)
	if err != nil {
		return
	}
	// The turn allows the session's scratch directory (agent's
	// openScratch): so does the sandbox the bash starts in, or the first
	// command would need another bash.
	if dir, err := agent.OpenScratch(a.scratchDir(), sess.ID); err == nil {
		a.spaces.mu.Lock()
		if !slices.Contains(a.spaces.scratch, dir) { // serve re-opens sessions
			a.spaces.scratch = append(a.spaces.scratch, dir)
		}
		a.spaces.mu.Unlock()
		_ = ws.Allow(dir)
	}
	sp, err := a.spaceFor(ws)
	if err != nil {
		return
	}
	if start := a.prestartShell(sp.shells.Session(sess.ID), a.sessionPolicy(sess), ws); start != nil {
		start()
	}
}

// ShellOptions are the sandbox and environment options the app gives a
// workspace's shell manager under settings cfg with sandbox sb (Roots and
// the rest are the caller's): appsandbox checks them with the kernel's
// sandbox.
func ShellOptions(cfg *config.Config, sb *sandbox.Sandbox) shell.ManagerOptions {
	var o shell.ManagerOptions
	(&App{Config: cfg, Sandbox: sb}).shellOptions(&o)
	return o
}

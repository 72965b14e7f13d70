package app

import (
	"os"
	"os/exec"

	"github.com/olly-agent/olly/internal/hooks"
	"github.com/olly-agent/olly/internal/sandbox"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/shell"
	"github.com/olly-agent/olly/internal/trust"
	"github.com/olly-agent/olly/internal/workspace"
)

// hookRunner builds the hooks of a turn's workspace, read afresh each turn
// so edited files and new trust apply at once. Project hooks run only when
// trusted; hooks run in the workspace-write sandbox with the shell's clean
// environment. Nil when hooks are off or there are none.
func (a *App) hookRunner(sessionID string, ws *workspace.Workspace) *hooks.Runner {
	if !a.Config.Hooks.Enabled || ws == nil {
		return nil
	}
	root := ws.Primary().Path
	files, warnings := hooks.Load(hooks.LoadOptions{Workspace: root, ConfigDir: a.Config.Paths().ConfigDir, ClaudeCompat: a.Config.Hooks.ClaudeCompat})
	for _, w := range warnings {
		a.Log.Warn(w)
	}
	if len(files) == 0 {
		return nil
	}
	var store hooks.Trust
	if s, err := trust.Open(a.trustPath()); err == nil {
		store = s
	} else {
		a.Log.Warn("hooks: project hooks stay off", "error", err)
	}
	// Pinned (sandbox.Pin resolves the template's caches now): the roots
	// are real paths since the workspace was opened, so one a command has
	// replaced with a link since is not followed.
	spec := sandbox.Pin(a.sandboxSpec())
	spec.Policy = sandbox.WorkspaceWrite
	for _, r := range ws.Roots() {
		spec.Writable = append(spec.Writable, r.Path)
	}
	r := hooks.New(hooks.Options{
		Files:     files,
		Workspace: root,
		Trust:     store,
		Env:       shell.EnvPolicy{Keep: a.Config.Shell.Env.Keep, Drop: a.Config.Shell.Env.Drop}.Environ(os.Environ()),
		Start:     func(cmd *exec.Cmd) (<-chan error, error) { return a.Sandbox.Start(cmd, spec) },
	})
	for _, f := range r.Untrusted() {
		// Once per session and version of the file: the runner is built
		// at every turn, and the log must not repeat itself each time.
		if a.trust.firstTime(sessionID, root, trust.KindHook, f.Source, f.Fingerprint) {
			a.Log.Warn("hooks: project hooks not trusted; they do not run (olly hooks trust)", "file", f.Source, "workspace", root, "session", sessionID)
		}
	}
	return r
}

// turnHooks are the hooks of a turn's workspace, for the agent's
// PreCompact hooks of /compact (agent.Deps.Hooks); nil when none run.
func (a *App) turnHooks(t *session.Turn) any {
	if h := a.hookRunner(t.SessionID, t.Workspace); h != nil { // a nil *Runner must not become a non-nil interface
		return h
	}
	return nil
}

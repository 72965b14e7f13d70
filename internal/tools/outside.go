package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/safety"
	"github.com/olly-agent/olly/internal/workspace"
)

// outsideRequest turns a path outside the workspace into a request to allow
// its directory for the session (workspace.Allow), or returns false when
// err is not about such a path. what says what the tool wants to do there
// ("read", "write").
//
// A directory grant is always critical: only a person widens the
// workspace. --yes, auto-approve and any approval mode below critical never
// grant it (a model steered by hostile repository content would otherwise
// read secrets or plant files outside it); --add-dir and the user-level
// workspace.extraRoots widen the workspace in advance instead.
func outsideRequest(err error, what string) (*approval.Request, *workspace.OutsideError, bool) {
	var out *workspace.OutsideError
	if !errors.As(err, &out) || out.Dir == "" {
		return nil, nil, false
	}
	home, _ := os.UserHomeDir()
	req := &approval.Request{
		Kind:     event.ApprovalDirectory,
		FilePath: out.Dir,
		Severity: safety.Critical,
		Rule:     "outside-workspace",
		Reason: fmt.Sprintf("The agent wants to %s %s, outside the workspace; approving lets it read and write in %s for the rest of this session",
			what, out.Resolved, out.Dir),
	}
	if systemDir(out.Dir, home) {
		req.Rule = "system-directory"
		req.Reason += " (a system directory, the home directory or a folder of credentials)"
	}
	return req, out, true
}

// systemDir reports whether giving the agent dir gives it the file system
// root, system directories, the home directory itself (or above it) or
// the directories that hold credentials.
func systemDir(dir, home string) bool {
	dir = filepath.Clean(dir)
	if dir == string(filepath.Separator) {
		return true
	}
	if home != "" {
		home = filepath.Clean(home)
		if home == dir || strings.HasPrefix(home, dir+string(filepath.Separator)) {
			return true
		}
		for _, secret := range []string{".ssh", ".gnupg", ".aws", ".kube", ".docker", ".password-store", ".config/gcloud", ".netrc", ".git-credentials"} {
			s := filepath.Join(home, secret)
			if dir == s || strings.HasPrefix(dir, s+string(filepath.Separator)) {
				return true
			}
		}
	}
	for _, sys := range []string{"/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/boot", "/dev", "/proc", "/sys", "/root", "/var", "/opt", "/System", "/Library", "/private/etc"} {
		if dir == sys || strings.HasPrefix(dir, sys+"/") {
			if strings.HasPrefix(dir, "/var/tmp") || strings.HasPrefix(dir, "/var/folders") {
				continue
			}
			return true
		}
	}
	return false
}

// allowOutside records an approved directory grant and resolves path again
// through the widened workspace.
func allowOutside(env *Env, d approval.Decision, out *workspace.OutsideError) error {
	if out == nil || !d.Approved() {
		return nil
	}
	if err := env.Workspace.Allow(out.Dir); err != nil {
		return fmt.Errorf("allow %s: %w", out.Dir, err)
	}
	return nil
}

// pathError is the result for a path the model can fix.
func pathError(tool string, err error) *Result {
	return &Result{IsError: true, Content: fmt.Sprintf("%s: %v", tool, err), Display: event.ToolAction{Detail: "bad path"}}
}

// noWorkspace is the result when the session has no workspace.
func noWorkspace(tool string) *Result {
	return &Result{IsError: true, Content: tool + " is unavailable: this session has no workspace directory."}
}

// errResult is a failure the model can act on.
func errResult(format string, a ...any) *Result {
	return &Result{IsError: true, Content: fmt.Sprintf(format, a...)}
}

// prepareRead prepares a reading call on the path given: a path outside
// the workspace first asks the person to allow its directory; a path the
// model can fix ends the call. run gets the resolved path.
func prepareRead(env *Env, tool, given string, look event.ToolAction, run func(ctx context.Context, env *Env, wp workspace.Path) (*Result, error)) *Prepared {
	if env.Workspace == nil {
		return &Prepared{Display: look, Done: noWorkspace(tool)}
	}
	_, err := env.Workspace.Resolve(given)
	req, out, outside := outsideRequest(err, "read")
	if err != nil && !outside {
		return &Prepared{Display: look, Done: pathError(tool, err)}
	}
	return &Prepared{Display: look, Approval: req, Run: func(ctx context.Context, env *Env, d approval.Decision) (*Result, error) {
		if err := allowOutside(env, d, out); err != nil {
			return nil, err
		}
		wp, err := env.Workspace.Resolve(given)
		if err != nil {
			return pathError(tool, err), nil
		}
		return run(ctx, env, wp)
	}}
}

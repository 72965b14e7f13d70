package cli

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/sandbox"
)

// nestedGitChecks reports the repositories inside the workspace that the
// Linux sandbox keeps read-only besides its own .git (a clone in
// third_party/, a linked worktree, a bare repository), and warns when
// the search for them was cut short: repositories where it did not look
// are not protected. Nothing when there are none (macOS's rule covers
// .git at any depth without a search).
func nestedGitChecks(opts *doctorOptions, cfg *config.Config) []check {
	if runtime.GOOS != "linux" || cfg == nil || opts.Workspace == nil {
		return nil
	}
	ws, err := opts.Workspace()
	if err != nil {
		return nil
	}
	spec := app.SandboxSpec(cfg)
	spec.Writable = append([]string{ws}, spec.Writable...)
	return nestedGitCheck(ws, sandbox.NestedRepositories(spec))
}

// nestedGitCheck is the doctor line for what the search in ws found.
func nestedGitCheck(ws string, n sandbox.Nested) []check {
	if n.Cut != "" {
		return []check{{Area: "nested git", Status: checkWarn, Detail: n.Cut + " (it runs each time a workspace-write shell starts, within fixed bounds)",
			Fix: "open olly in a smaller folder, or move big folders that hold no repositories out of the workspace; docs/safety.md (\".git stays read-only\") has the bounds"}}
	}
	if len(n.Git) == 0 {
		return nil
	}
	names := make([]string, 0, len(n.Git))
	for _, g := range n.Git {
		rel, err := filepath.Rel(ws, g)
		if err != nil || !filepath.IsLocal(rel) {
			rel = g // a writable place other than the workspace
		}
		names = append(names, rel)
	}
	if len(names) > 5 {
		names = append(names[:5], fmt.Sprintf("and %d more", len(names)-5))
	}
	return []check{{Area: "nested git", Status: checkOK, Detail: fmt.Sprintf("%d nested repositories kept read-only in the sandbox like the workspace's .git: %s",
		len(n.Git), strings.Join(names, ", "))}}
}

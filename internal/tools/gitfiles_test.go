package tools

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/event"
)

// The files git reads as configuration or repository ask at critical, so
// neither --yes nor auto-approved edits write them (issue 13's attack:
// sub/config with core.fsmonitor, sub/HEAD, then git --git-dir=sub status).
func TestWriteFileGitFilesAreCritical(t *testing.T) {
	tests := []struct {
		name  string
		setup map[string]string
		path  string
		rule  string // "" = written without asking
	}{
		{"hook", nil, ".git/hooks/pre-commit", "git-dir"},
		{"repository config", nil, ".git/config", "git-dir"},
		{"nested repository's config", nil, "vendor/lib/.git/config", "git-dir"},
		{"upper-case .GIT", nil, "sub/.GIT/config", "git-dir"},
		{"gitdir file", nil, "sub/.git", "git-dir"},
		{"gitmodules", nil, ".gitmodules", "git-config-file"},
		{"gitattributes", nil, "docs/.gitattributes", "git-config-file"},
		{"HEAD makes a git directory", nil, "sub/HEAD", "git-dir"},
		{"config beside HEAD", map[string]string{"sub/HEAD": "ref: refs/heads/main\n"}, "sub/config", "git-dir"},
		{"objects below HEAD", map[string]string{"sub/HEAD": "ref: refs/heads/main\n"}, "sub/objects/ab/cdef", "git-dir"},
		{"config without HEAD is ordinary", nil, "sub/config", ""},
		{"config folder is ordinary", nil, "config/app.yaml", ""},
		{"code is ordinary", nil, "main.go", ""},
		{"gitignore is ordinary", nil, ".gitignore", ""},
		{"a head file in lower case is ordinary", nil, "docs/head", ""},
	}
	allAuto := []config.FileRule{{Pattern: "**/*", Action: config.FileAuto}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.setup)
			h.env.FileRules = allAuto
			h.approver.SetPolicy("s1", approval.Policy{Unattended: true, Yes: true, AutoApproveSensitiveEdits: true})
			res := h.call("write_file", map[string]any{"path": tc.path, "content": "[core]\n\tfsmonitor = touch /tmp/pwned\n"})
			_, err := os.Stat(filepath.Join(root(h.ws), tc.path))
			if tc.rule == "" {
				if res.IsError || err != nil {
					t.Fatalf("ordinary write refused: %+v (stat %v)", res, err)
				}
				return
			}
			if !res.Denied || err == nil {
				t.Fatalf("write of %s went through under --yes: %+v", tc.path, res)
			}
			var req *event.ApprovalRequested
			for _, p := range h.rec.all() {
				if r, ok := p.(event.ApprovalRequested); ok {
					req = &r
				}
			}
			if req == nil || req.Severity != "critical" || req.Rule != tc.rule {
				t.Fatalf("request = %+v, want critical %s", req, tc.rule)
			}
		})
	}
}

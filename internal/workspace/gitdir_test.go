package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGitDirFileAndCommonDir(t *testing.T) {
	top := t.TempDir()
	file := filepath.Join(top, ".git")
	for _, tc := range []struct{ content, want string }{
		{"gitdir: ../main/.git/worktrees/wt\n", filepath.Join(filepath.Dir(top), "main/.git/worktrees/wt")},
		{"gitdir:/abs/./x//y", "/abs/x/y"},
		{"  gitdir:   rel  \r\nsecond line: ignored\n", filepath.Join(top, "rel")},
		{"gitdir:\n", ""},
		{"gitdir: \nx\n", ""},
		{"", ""},
		{"worktree: x\n", ""},
	} {
		if err := os.WriteFile(file, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := GitDirFile(top, file); got != tc.want {
			t.Errorf("GitDirFile of %q = %q, want %q", tc.content, got, tc.want)
		}
	}
	if got := GitDirFile(top, filepath.Join(top, "missing")); got != "" {
		t.Errorf("GitDirFile of a missing file = %q", got)
	}
	if got := GitDirFile(top, top); got != "" {
		t.Errorf("GitDirFile of a folder = %q", got)
	}

	dir := filepath.Join(top, "wt")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := CommonDir(dir); got != "" {
		t.Errorf("CommonDir without a commondir file = %q", got)
	}
	for _, tc := range []struct{ content, want string }{
		{"../..\n", filepath.Dir(top)},
		{"/abs/common\n", "/abs/common"},
		{"\n", ""},
	} {
		if err := os.WriteFile(filepath.Join(dir, "commondir"), []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := CommonDir(dir); got != tc.want {
			t.Errorf("CommonDir with %q = %q, want %q", tc.content, got, tc.want)
		}
	}
}

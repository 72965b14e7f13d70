package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
)

func projectTree() map[string]string {
	return map[string]string{
		".gitignore":             "build/\n*.log\n",
		".git/HEAD":              "ref: refs/heads/main\n",
		"README.md":              "",
		"go.mod":                 "",
		"Zeta.txt":               "",
		"app.log":                "",
		"build/out.bin":          "",
		"cmd/olly/main.go":       "",
		"internal/a/a.go":        "",
		"internal/a/a_test.go":   "",
		"internal/b/b.go":        "",
		"internal/b/deep/x/y.go": "",
		"docs/guide.md":          "",
	}
}

func TestListFiles(t *testing.T) {
	h := newHarness(t, projectTree())
	outside := t.TempDir()
	files(t, outside, map[string]string{"secret.txt": ""})
	if err := os.Symlink(outside, filepath.Join(root(h.ws), "escape")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"top level, directories first", map[string]any{}, "cmd/\ndocs/\ninternal/\n.gitignore\ngo.mod\nREADME.md\nZeta.txt"},
		{"subdirectory", map[string]any{"path": "internal/a"}, "a.go\na_test.go"},
		{"recursive with depth", map[string]any{"path": "internal", "recursive": true, "depth": 2},
			"a/\na/a.go\na/a_test.go\nb/\nb/deep/\nb/b.go"},
		{"recursive default depth", map[string]any{"path": "internal", "recursive": "true"},
			"a/\na/a.go\na/a_test.go\nb/\nb/deep/\nb/deep/x/\nb/b.go"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := h.call("list_files", tc.args)
			if res.IsError {
				t.Fatal(res.Content)
			}
			_, body, _ := strings.Cut(res.Content, "\n")
			if body != tc.want {
				t.Fatalf("listing:\n%s\nwant:\n%s", body, tc.want)
			}
			mustNotContain(t, res.Content, "build", "app.log", ".git/", "escape", "secret")
		})
	}
	a := h.lastAction()
	if len(a.Listing) != 7 || a.Listing[0] != (event.ListingEntry{Path: "internal/a", IsDir: true}) {
		t.Fatalf("listing = %+v", a.Listing)
	}
}

func TestListFilesErrorsAndCaps(t *testing.T) {
	spec := map[string]string{"one.txt": ""}
	for i := range 30 {
		spec[fmt.Sprintf("d%02d/f.txt", i)] = ""
	}
	h := newHarness(t, spec)
	h.reg, _ = NewRegistry(ListFiles{MaxEntries: 40})

	res := h.call("list_files", map[string]any{"recursive": true})
	mustContain(t, res.Content, "30 directories, 31 files (showing 31)", "d00/\n", "one.txt",
		"[30 entries deeper than level 1 are not shown (limit 40)")
	mustNotContain(t, res.Content, "d00/f.txt")

	h.reg, _ = NewRegistry(ListFiles{MaxEntries: 10})
	res = h.call("list_files", map[string]any{})
	mustContain(t, res.Content, "(showing 10)", "d09/", "[21 more entries are not shown")
	mustNotContain(t, res.Content, "d10/")

	for name, args := range map[string]map[string]any{
		"a file":    {"path": "one.txt"},
		"missing":   {"path": "nope"},
		"bad depth": {"depth": 0},
	} {
		if res := h.call("list_files", args); !res.IsError {
			t.Fatalf("%s: %+v", name, res)
		}
	}
	empty := newHarness(t, map[string]string{"e/": ""})
	if res := empty.call("list_files", map[string]any{"path": "e"}); res.IsError || !strings.Contains(res.Content, "is empty") {
		t.Fatalf("%+v", res)
	}
}

func TestFindFiles(t *testing.T) {
	h := newHarness(t, projectTree())
	tests := []struct {
		name    string
		args    map[string]any
		want    []string
		isError bool
	}{
		{"name anywhere", map[string]any{"pattern": "*.go"}, []string{"cmd/olly/main.go", "internal/a/a.go", "internal/a/a_test.go", "internal/b/b.go", "internal/b/deep/x/y.go"}, false},
		{"path pattern", map[string]any{"pattern": "internal/*/*.go"}, []string{"internal/a/a.go", "internal/a/a_test.go", "internal/b/b.go"}, false},
		{"doublestar", map[string]any{"pattern": "internal/**/y.go"}, []string{"internal/b/deep/x/y.go"}, false},
		{"scoped", map[string]any{"pattern": "*_test.go", "path": "internal"}, []string{"internal/a/a_test.go"}, false},
		{"scoped relative pattern", map[string]any{"pattern": "a/*.go", "path": "internal"}, []string{"internal/a/a.go", "internal/a/a_test.go"}, false},
		{"braces and commas", map[string]any{"pattern": "*.{md,mod},Zeta.txt"}, []string{"README.md", "Zeta.txt", "docs/guide.md", "go.mod"}, false},
		{"gitignored files skipped", map[string]any{"pattern": "*.log"}, nil, true},
		{"no match", map[string]any{"pattern": "*.rs"}, nil, true},
		{"invalid pattern", map[string]any{"pattern": "[a-"}, nil, true},
		{"missing pattern", map[string]any{}, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := h.call("find_files", tc.args)
			if res.IsError != tc.isError {
				t.Fatalf("IsError = %v: %s", res.IsError, res.Content)
			}
			if tc.isError {
				return
			}
			_, body, _ := strings.Cut(res.Content, "\n")
			if body != strings.Join(tc.want, "\n") {
				t.Fatalf("found:\n%s\nwant:\n%s", body, strings.Join(tc.want, "\n"))
			}
			if a := h.lastAction(); len(a.Listing) != len(tc.want) {
				t.Fatalf("listing = %+v", a.Listing)
			}
		})
	}
	h.reg, _ = NewRegistry(FindFiles{MaxResults: 2})
	res := h.call("find_files", map[string]any{"pattern": "*.go"})
	mustContain(t, res.Content, "5 files match", "(showing the first 2)", "cmd/olly/main.go\ninternal/a/a.go\n[3 more files")
}

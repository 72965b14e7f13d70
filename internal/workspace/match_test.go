package workspace

import (
	"slices"
	"strings"
	"testing"
)

func TestFileListMatch(t *testing.T) {
	l := NewFileList([]string{
		"README.md", "go.mod", "cmd/olly/main.go", "internal/ui/tui/model.go",
		"internal/workspace/match.go", "internal/workspace/match_test.go", "docs/Models.md",
		"internal/models/catalog.go", "Ünïcode/Straße.txt",
	})
	cases := []struct {
		name, query string
		limit       int
		want        []string
	}{
		{"empty lists the shortest paths", "", 3, []string{"go.mod", "README.md", "docs/Models.md"}},
		{"base name before path, shorter first", "mod", 10, []string{"go.mod", "docs/Models.md", "internal/ui/tui/model.go", "internal/models/catalog.go"}},
		{"case does not matter", "readme", 10, []string{"README.md"}},
		{"in the path only", "olly/", 10, []string{"cmd/olly/main.go"}},
		{"characters in order, tightest first", "wsmatch", 10, []string{"internal/workspace/match.go", "internal/workspace/match_test.go"}},
		{"substring before sparse", "main", 10, []string{"cmd/olly/main.go"}},
		{"limit cuts the best", "go", 2, []string{"go.mod", "cmd/olly/main.go"}},
		{"no match", "zzz", 10, []string{}},
		{"non-ASCII", "straße", 10, []string{"Ünïcode/Straße.txt"}},
		{"zero limit", "go", 0, []string{}},
		{"surrounding space ignored", "  readme ", 10, []string{"README.md"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := l.Match(tc.query, tc.limit)
			if !slices.Equal(got, tc.want) {
				t.Errorf("Match(%q, %d) = %q, want %q", tc.query, tc.limit, got, tc.want)
			}
		})
	}
}

func TestSparse(t *testing.T) {
	for _, tc := range []struct {
		s, q string
		span int
		ok   bool
	}{
		{"internal/workspace/match.go", "wsm", len("workspace/m"), true},
		{"abc", "cb", 0, false},
		{"a\xffb", "\xffb", 2, true},
		{"a\xff", "\xff\xff", 0, false},
	} {
		span, ok := sparse(tc.s, tc.q)
		if span != tc.span || ok != tc.ok {
			t.Errorf("sparse(%q, %q) = %d, %v; want %d, %v", tc.s, tc.q, span, ok, tc.span, tc.ok)
		}
	}
}

func FuzzFileListMatch(f *testing.F) {
	f.Add("internal/workspace/match.go\ngo.mod\nREADME.md", "wsm", 5)
	f.Add("a\xffb\nÜ/ß", "\xff", 3)
	f.Fuzz(func(t *testing.T, files, query string, limit int) {
		limit = limit % 64
		list := strings.Split(files, "\n")
		got := NewFileList(list).Match(query, limit)
		if len(got) > max(limit, 0) {
			t.Fatalf("Match returned %d paths, limit %d", len(got), limit)
		}
		for _, p := range got {
			if !slices.Contains(list, p) {
				t.Fatalf("Match returned %q, not a listed path", p)
			}
		}
	})
}

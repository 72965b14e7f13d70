package tools

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/workspace"
)

func searchTree() map[string]string {
	return map[string]string{
		".git/HEAD":         "ref: refs/heads/main\n",
		".gitignore":        "vendor/\n",
		"src/user.go":       "package src\n\ntype User struct {\n\tName string\n}\n\nfunc NewUser() *User { return &User{} }\n",
		"src/handler.go":    "package src\n\n// handleUser serves /user.\nfunc handleUser() {}\n\nfunc handleAdmin() {}\n",
		"docs/notes.md":     "Users are created by NewUser.\nSee also: USER_ID.\n",
		"vendor/lib/lib.go": "package lib // User appears here but is ignored\n",
		"bin/tool":          "ELF\x00\x01User",
	}
}

func TestSearchWorkspace(t *testing.T) {
	h := newHarness(t, searchTree())
	tests := []struct {
		name    string
		args    map[string]any
		isError bool
		want    []string
		not     []string
	}{
		{"smart case: lower case ignores case", map[string]any{"query": "user"}, false,
			[]string{"── docs/notes.md ──\n→ 1: Users are created by NewUser.\n→ 2: See also: USER_ID.\n", "── src/handler.go ──\n→ 3: // handleUser serves /user.\n→ 4: func handleUser() {}\n"},
			[]string{"vendor", "bin/tool"}},
		{"smart case: capitals match exactly", map[string]any{"query": "NewUser"}, false,
			[]string{"Found 2 matching lines in 2 files", "→ 7: func NewUser() *User { return &User{} }"}, []string{"USER_ID"}},
		{"case sensitive forced", map[string]any{"query": "user", "caseSensitive": true}, false,
			[]string{"Found 1 matching lines in 1 files", "→ 3: // handleUser serves /user."}, nil},
		{"case ignored forced", map[string]any{"query": "NEWUSER", "caseSensitive": false}, false,
			[]string{"Found 2 matching lines"}, nil},
		{"regex alternatives", map[string]any{"query": `func handle(User|Admin)\(`, "isRegex": true}, false,
			[]string{"→ 4: func handleUser() {}", "→ 6: func handleAdmin() {}"}, nil},
		{"regex (?i)", map[string]any{"query": `(?i)user_id`, "isRegex": true}, false, []string{"→ 2: See also: USER_ID."}, nil},
		{"regex anchors per line", map[string]any{"query": `^type \w+ struct`, "isRegex": true}, false, []string{"→ 3: type User struct {"}, nil},
		{"directory scope", map[string]any{"query": "user", "directory": "docs"}, false, []string{"── docs/notes.md ──"}, []string{"src/"}},
		{"include glob", map[string]any{"query": "user", "include": "*.go"}, false, []string{"── src/user.go ──"}, []string{"docs/"}},
		{"include path glob", map[string]any{"query": "user", "include": "docs/**"}, false, []string{"docs/notes.md"}, []string{"src/"}},
		{"context lines", map[string]any{"query": "Name string", "contextLines": 1}, false,
			[]string{"── src/user.go ──\n  3: type User struct {\n→ 4: \tName string\n  5: }"}, nil},
		{"binary files skipped", map[string]any{"query": "ELF"}, true, []string{"No matches", "[Not searched: 1 binary files.]"}, nil},
		{"invalid regex", map[string]any{"query": `func (`, "isRegex": true}, true,
			[]string{"invalid regular expression: missing closing )", "set isRegex to false"}, nil},
		{"no match with hints", map[string]any{"query": "Foo|Bar"}, true,
			[]string{"No matches for \"Foo|Bar\"", "set isRegex to true", "set caseSensitive to false"}, nil},
		{"empty query", map[string]any{"query": ""}, true, []string{"the query is empty"}, nil},
		{"query spanning lines", map[string]any{"query": "a\nb"}, true, []string{"spans lines"}, nil},
		{"bad include", map[string]any{"query": "x", "include": "[a-"}, true, []string{"not a valid glob"}, nil},
		{"missing directory", map[string]any{"query": "x", "directory": "nope"}, true, []string{"does not exist"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := h.call("search_workspace", tc.args)
			if res.IsError != tc.isError {
				t.Fatalf("IsError = %v:\n%s", res.IsError, res.Content)
			}
			mustContain(t, res.Content, tc.want...)
			mustNotContain(t, res.Content, tc.not...)
		})
	}
}

func TestSearchListingAndCaps(t *testing.T) {
	spec := map[string]string{}
	for i := range 12 {
		spec[fmt.Sprintf("f%02d.txt", i)] = strings.Repeat("hit\nmiss\n", 30)
	}
	h := newHarness(t, spec)
	h.reg, _ = NewRegistry(Search{PerFile: 5, MaxMatches: 22})
	res := h.call("search_workspace", map[string]any{"query": "hit"})
	mustContain(t, res.Content,
		"Found 360 matching lines in 12 files",
		"── f00.txt ──\n→ 1: hit\n→ 3: hit\n→ 5: hit\n→ 7: hit\n→ 9: hit\n[… 25 more matching lines in this file]",
		"── f04.txt ──\n→ 1: hit\n→ 3: hit\n[… 28 more",
		"[Showing 22 of 360 matching lines, from 5 of 12 files.")
	mustNotContain(t, res.Content, "f05.txt")
	a := h.lastAction()
	if a.Detail != "360 matches in 12 files" || len(a.Listing) != 5 || a.Listing[0] != (event.ListingEntry{Path: "f00.txt", Count: 30}) {
		t.Fatalf("action = %+v", a)
	}
}

func TestSearchContextMerges(t *testing.T) {
	h := newHarness(t, map[string]string{"a.txt": "1\n2 x\n3\n4 x\n5\n6\n7\n8\n9 x\n10\n"})
	res := h.call("search_workspace", map[string]any{"query": "x", "contextLines": 1})
	want := "── a.txt ──\n  1: 1\n→ 2: 2 x\n  3: 3\n→ 4: 4 x\n  5: 5\n  …\n  8: 8\n→ 9: 9 x\n  10: 10"
	mustContain(t, res.Content, want)
}

func TestSearchSkipsHugeFilesAndCutsLongLines(t *testing.T) {
	h := newHarness(t, map[string]string{
		"big.txt":  strings.Repeat("needle ", 10) + strings.Repeat("y", 2<<20),
		"long.txt": strings.Repeat("z", 5000) + "needle" + strings.Repeat("z", 5000) + "\n",
	})
	h.reg, _ = NewRegistry(Search{MaxFileBytes: 1 << 20})
	res := h.call("search_workspace", map[string]any{"query": "needle"})
	mustContain(t, res.Content, "── long.txt ──", "[4900 bytes] …", "needle", "… [", "[Not searched: 1 files over 1 MB.]")
	if strings.Count(res.Content, "z") > 500 {
		t.Fatal("a long line was not cut")
	}
}

// reference is the obvious, slow search: split into lines, test each.
func reference(data []byte, text string, isRegex bool, cs *bool) ([]int, error) {
	var match func(line []byte) bool
	if isRegex {
		p := text
		if cs != nil && !*cs {
			p = "(?i)" + p
		}
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, err
		}
		match = re.Match
	} else {
		fold := !hasUpper(text)
		if cs != nil {
			fold = !*cs
		}
		switch {
		case !fold:
			match = func(l []byte) bool { return bytes.Contains(l, []byte(text)) }
		case isASCII(text) || !utf8.ValidString(text):
			lower := bytes.ToLower([]byte(text))
			match = func(l []byte) bool { return bytes.Contains(asciiLower(l), lower) }
		default:
			re := regexp.MustCompile("(?i)" + regexp.QuoteMeta(text))
			match = re.Match
		}
	}
	if len(data) == 0 {
		return nil, nil
	}
	lines := bytes.Split(data, []byte{'\n'})
	if data[len(data)-1] == '\n' {
		lines = lines[:len(lines)-1]
	}
	var out []int
	for i, l := range lines {
		if match(l) {
			out = append(out, i+1)
		}
	}
	return out, nil
}

func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// scanLines runs the real engine and returns the matching line numbers.
func scanLines(data []byte, text string, isRegex bool, cs *bool) ([]int, error) {
	q, err := compileQuery(text, isRegex, cs)
	if err != nil {
		return nil, err
	}
	var out []int
	no, last := 1, 0
	q.scan(data, func(start, end, col int) bool {
		if start < last || end < start || end > len(data) || col < 0 || col > end-start {
			panic(fmt.Sprintf("bad bounds start=%d end=%d col=%d last=%d len=%d", start, end, col, last, len(data)))
		}
		no += bytes.Count(data[last:start], []byte{'\n'})
		last = start
		out = append(out, no)
		return true
	})
	return out, nil
}

func checkAgainstReference(t *testing.T, data []byte, text string, isRegex bool, cs *bool) {
	t.Helper()
	want, werr := reference(data, text, isRegex, cs)
	got, gerr := scanLines(data, text, isRegex, cs)
	if gerr != nil && werr == nil && !isRegex && strings.Contains(text, "\n") {
		return // refused on purpose: matches never span lines
	}
	if (werr != nil) != (gerr != nil) && text != "" {
		t.Fatalf("query %q regex=%v: errors differ: %v / %v", text, isRegex, werr, gerr)
	}
	if werr != nil || gerr != nil {
		return
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("query %q regex=%v cs=%v on %q:\n got %v\nwant %v", text, isRegex, cs, data, got, want)
	}
}

func TestSearchEngineMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"user", "User", "USER", "id", "_id", "func", "kelvin", "Kelvin", "\u212Aelvin", "ſtring", "string", "é", "É", "a\tb", "(x)", "", " "}
	queries := []struct {
		text  string
		regex bool
	}{
		{"user", false}, {"User", false}, {"_id", false}, {"kelvin", false}, {"string", false}, {"é", false}, {"(x)", false},
		{`user|kelvin`, true}, {`(?i)user`, true}, {`(?i)kelvin`, true}, {`(?i)string`, true}, {`^User`, true}, {`id$`, true},
		{`\bid\b`, true}, {`u.er`, true}, {`(User)+_id`, true}, {`x*`, true}, {`\s`, true}, {`é`, true}, {`(?i)É`, true}, {`[a-z]+ing`, true},
	}
	for i := range 400 {
		var b strings.Builder
		for range rng.IntN(40) {
			b.WriteString(words[rng.IntN(len(words))])
			if rng.IntN(4) == 0 {
				b.WriteByte('\n')
			}
		}
		data := []byte(b.String())
		q := queries[i%len(queries)]
		for _, cs := range []*bool{nil, ptr(true), ptr(false)} {
			checkAgainstReference(t, data, q.text, q.regex, cs)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func FuzzSearchQuery(f *testing.F) {
	f.Add("user", false, uint8(0), []byte("a User\nuser\n"))
	f.Add(`(?i)k\w+`, true, uint8(1), []byte("\u212Aelvin\nkelvin"))
	f.Add(`^$`, true, uint8(2), []byte("\n\n"))
	f.Add(`a|bc|def`, true, uint8(0), []byte("xxdefyy\nbc"))
	f.Add(`(`, true, uint8(0), []byte("("))
	f.Fuzz(func(t *testing.T, text string, isRegex bool, mode uint8, data []byte) {
		if len(text) > 200 || len(data) > 4096 {
			return
		}
		var cs *bool
		switch mode % 3 {
		case 1:
			cs = ptr(true)
		case 2:
			cs = ptr(false)
		}
		checkAgainstReference(t, data, text, isRegex, cs)
	})
}

func TestSearchFollowsOnlyRegularFiles(t *testing.T) {
	h := newHarness(t, map[string]string{"a.txt": "needle\n"})
	if err := os.Symlink("a.txt", filepath.Join(root(h.ws), "link.txt")); err != nil {
		t.Fatal(err)
	}
	res := h.call("search_workspace", map[string]any{"query": "needle"})
	mustContain(t, res.Content, "── a.txt ──", "── link.txt ──")
}

func TestSearchMultiRoot(t *testing.T) {
	front, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	back, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	front, back = filepath.Join(front, "frontend"), filepath.Join(back, "backend")
	files(t, front, map[string]string{"src/app.ts": "const token = 1\n"})
	files(t, back, map[string]string{"cmd/main.go": "token := 2\n"})
	h := newHarness(t, nil)
	h.ws, err = workspace.New([]string{front, back})
	if err != nil {
		t.Fatal(err)
	}
	h.env.Workspace = h.ws
	res := h.call("search_workspace", map[string]any{"query": "token"})
	mustContain(t, res.Content, "── backend/cmd/main.go ──\n→ 1: token := 2", "── frontend/src/app.ts ──\n→ 1: const token = 1")
	res = h.call("search_workspace", map[string]any{"query": "token", "directory": "backend"})
	mustContain(t, res.Content, "backend/cmd/main.go")
	mustNotContain(t, res.Content, "frontend")
	res = h.call("find_files", map[string]any{"pattern": "*.go"})
	mustContain(t, res.Content, "backend/cmd/main.go")
}

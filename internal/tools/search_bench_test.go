package tools

import (
	"bytes"
	"context"
	"fmt"
	"go/build"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/procs"
	"github.com/olly-agent/olly/internal/workspace"
)

// benchTree writes a repository of dirs×perDir files of about fileSize
// bytes of Go-like text, with a few planted needles, a .git directory and
// a .gitignore excluding one more directory (both tools must skip it).
func benchTree(b *testing.B, dirs, perDir, fileSize int) string {
	b.Helper()
	base := b.TempDir()
	rng := rand.New(rand.NewPCG(7, 11))
	words := strings.Fields("func return if err nil ctx context Context string int error for range := = { } ( ) " +
		"package import type struct interface map slice len append make fmt Sprintf Errorf user session event handler " +
		"request response config value key path file line buffer reader writer close open read write // TODO")
	var buf bytes.Buffer
	file := func(i int) []byte {
		buf.Reset()
		buf.WriteString("package bench\n\n")
		for buf.Len() < fileSize {
			buf.WriteByte('\t')
			for w := 3 + rng.IntN(9); w > 0; w-- {
				buf.WriteString(words[rng.IntN(len(words))])
				buf.WriteByte(' ')
			}
			buf.WriteByte('\n')
			if rng.IntN(40) == 0 {
				fmt.Fprintf(&buf, "func helper%d(x int) int { return x }\n", rng.IntN(1000))
			}
		}
		if i%500 == 0 {
			buf.WriteString("\tneedleLiteral := 1\n")
		}
		if i%400 == 7 {
			fmt.Fprintf(&buf, "func serve%dHandler(w http.ResponseWriter) {}\n", i)
		}
		return buf.Bytes()
	}
	n := 0
	for d := range dirs {
		dir := filepath.Join(base, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range perDir {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%03d.go", f)), file(n), 0o644); err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	files(b, base, map[string]string{
		".git/HEAD":         "ref: refs/heads/main\n",
		".gitignore":        "ignored/\n",
		"ignored/skip.go":   "needleLiteral\nfunc ignoredHandler(\n",
		"ignored/deep/x.go": "needleLiteral\n",
	})
	return base
}

// BenchmarkSearchVsRipgrep compares search_workspace with ripgrep on the
// same tree: 20,000 files, about 200 MB. ripgrep's output goes through a
// pipe, as ours goes into a result (ripgrep stops at the first match when
// its output is /dev/null).
//
//	go test -run '^$' -bench SearchVsRipgrep -benchtime 10x ./internal/tools/
func BenchmarkSearchVsRipgrep(b *testing.B) {
	rg, rgErr := exec.LookPath("rg")
	dir := benchTree(b, 200, 100, 10<<10)
	ws, err := workspace.New([]string{dir})
	if err != nil {
		b.Fatal(err)
	}
	env := &Env{Workspace: ws}
	ctx := context.Background()
	queries := []struct {
		name, query string
		regex       bool
	}{
		{"literal", "needleLiteral", false},
		{"regex", `func \w+Handler\(`, true},
	}
	for _, q := range queries {
		args := ArgsOf(map[string]any{"query": q.query, "isRegex": q.regex})
		rgArgs := []string{"-n", "--no-heading", "--no-config", q.query, dir}
		if !q.regex {
			rgArgs = append([]string{"-F"}, rgArgs...)
		}
		// Both must find the same lines (and warm the page cache).
		benchAgainstRipgrep(b, ctx, env, q.name, args, rg, rgArgs, rgErr)
	}
}

// BenchmarkScan measures the matcher alone on one 10 MB buffer.
func BenchmarkScan(b *testing.B) {
	var buf bytes.Buffer
	rng := rand.New(rand.NewPCG(1, 1))
	for buf.Len() < 10<<20 {
		fmt.Fprintf(&buf, "\tvalue%d := session.Request(ctx, key) // user %d\n", rng.IntN(1e6), rng.IntN(100))
	}
	data := buf.Bytes()
	for _, tc := range []struct {
		name, q string
		regex   bool
	}{
		{"literal", "needle", false},
		{"literal-fold", "needle", false},
		{"literal-common", "Request", false},
		{"regex-literal", `need\w+le`, true},
		{"regex-none", `\d{9}`, true},
	} {
		q, err := compileQuery(tc.q, tc.regex, nil)
		if err != nil {
			b.Fatal(err)
		}
		if tc.name == "literal" {
			q, _ = compileQuery(tc.q, false, ptr(true))
		}
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				q.scan(data, func(_, _, _ int) bool { return true })
			}
		})
	}
	_ = regexp.QuoteMeta
}

// goSourcePatterns are the patterns compared with ripgrep over the Go
// source tree: a literal, an alternation, a word-boundary pattern and a
// class repeat without any literal.
var goSourcePatterns = []struct {
	name, query string
	regex       bool
}{
	{"literal", "ErrUnexpectedEOF", false},
	{"alternation", `ErrShortWrite|ErrShortBuffer|ErrNoProgress`, true},
	{"word", `\bctx\b`, true},
	{"class-repeat", `\d{9}`, true},
}

// goSource is the Go installation's source tree (GOROOT/src), or "".
func goSource() string {
	dir := filepath.Join(build.Default.GOROOT, "src")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return ""
	}
	return dir
}

// BenchmarkSearchGoSource compares search_workspace with ripgrep over
// GOROOT/src (about 11,000 files, 150 MB) for the patterns above, after
// checking that both find the same number of lines (the test
// TestSearchMatchesRipgrep compares the lines themselves).
//
//	go test -run '^$' -bench SearchGoSource -benchtime 5x ./internal/tools/
func BenchmarkSearchGoSource(b *testing.B) {
	dir := goSource()
	if dir == "" {
		b.Skip("no Go source tree at GOROOT/src")
	}
	rg, rgErr := exec.LookPath("rg")
	ws, err := workspace.New([]string{dir})
	if err != nil {
		b.Fatal(err)
	}
	env := &Env{Workspace: ws}
	ctx := context.Background()
	for _, q := range goSourcePatterns {
		args := ArgsOf(map[string]any{"query": q.query, "isRegex": q.regex})
		benchAgainstRipgrep(b, ctx, env, q.name, args, rg, rgArgsFor(q.query, q.regex, dir), rgErr)
	}
}

// rgArgsFor is the ripgrep command line that searches like
// search_workspace: line numbers, smart case for plain text, the pattern
// as a regular expression or fixed string.
func rgArgsFor(query string, regex bool, dir string) []string {
	args := []string{"-n", "--no-heading", "--no-config"}
	if !regex {
		args = append(args, "-F", "-S")
	}
	return append(args, "-e", query, dir)
}

// benchAgainstRipgrep checks that search_workspace and ripgrep (when
// installed) count the same matching lines for one query, then times both.
func benchAgainstRipgrep(b *testing.B, ctx context.Context, env *Env, name string, args Args, rg string, rgArgs []string, rgErr error) {
	b.Helper()
	res, err := Search{}.Run(ctx, env, args)
	if err != nil || res.IsError {
		b.Fatalf("%s: %v %+v", name, err, res)
	}
	var ours int
	fmt.Sscanf(res.Content, "Found %d matching lines", &ours)
	if rgErr == nil {
		out, err := exec.Command(rg, rgArgs...).Output()
		if err != nil {
			b.Fatalf("rg: %v", err)
		}
		if theirs := bytes.Count(out, []byte{'\n'}); theirs != ours {
			b.Fatalf("%s: ripgrep found %d lines, search_workspace %d", name, theirs, ours)
		}
	}
	b.Run("olly/"+name, func(b *testing.B) {
		// As olly runs it: one P, all of them inside search's Wide section.
		if procs.Enable() {
			defer procs.Disable()
		}
		b.ReportAllocs()
		for b.Loop() {
			if res, err := (Search{}).Run(ctx, env, args); err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
	b.Run("rg/"+name, func(b *testing.B) {
		if rgErr != nil {
			b.Skip("ripgrep is not installed (apt-get install ripgrep)")
		}
		for b.Loop() {
			cmd := exec.Command(rg, rgArgs...)
			cmd.Stdout = io.Discard
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

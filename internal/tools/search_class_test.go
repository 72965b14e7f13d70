package tools

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/workspace"
)

func TestRequiredRun(t *testing.T) {
	cases := []struct {
		pattern string
		k       int    // 0: no run is used
		in, out string // bytes that must be in / out of the set
	}{
		{`\d{9}`, 9, "0123456789", "a \n"},
		{`\b\d{9}\b`, 9, "09", "a"},
		{`x\d{9}`, 10, "x09", "y"},
		{`[0-9a-f]{8}`, 8, "09af", "g-A"},
		{`(?i)[a-f]{8}`, 8, "afAF", "gG"},
		{`\d{3}-\d{4}-\d{4}`, 13, "09-", "a"},
		{`[A-Z]{2}\d{7}`, 9, "AZ09", "a"},
		{`\pN{30}`, 30, "09\x80\xff", "a"}, // non-ASCII digits: every byte from 0x80
		{`(\d{9})+`, 9, "09", "a"},
		{`.{20}`, 0, "", ""},        // any byte: selects nothing
		{`\w{5}`, 0, "", ""},        // too common to be worth it
		{`\d{9}|x`, 0, "", ""},      // the other branch needs no digits
		{`(\d{9})?y`, 0, "", ""},    // optional
		{`(\d{9})*`, 0, "", ""},     // optional
		{`\d{0,9}`, 0, "", ""},      // optional
		{`\s{20}`, 20, " \t", "\n"}, // a run never spans a line break
	}
	for _, c := range cases {
		re, err := syntax.Parse(c.pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		run := requiredRun(re.Simplify())
		if c.k == 0 {
			if run != nil {
				t.Errorf("%s: run of %d, want none", c.pattern, run.k)
			}
			continue
		}
		if run == nil || run.k != c.k {
			t.Errorf("%s: run %+v, want k=%d", c.pattern, run, c.k)
			continue
		}
		for _, b := range []byte(c.in) {
			if !run.in[b] {
				t.Errorf("%s: %q not in the set", c.pattern, b)
			}
		}
		for _, b := range []byte(c.out) {
			if run.in[b] {
				t.Errorf("%s: %q in the set", c.pattern, b)
			}
		}
	}
}

func TestClassRunFind(t *testing.T) {
	run := &classRun{k: 3}
	for c := '0'; c <= '9'; c++ {
		run.in[c] = true
	}
	buf := []byte("a12b1234c\n99\n567")
	var got []int
	for pos := 0; ; {
		s := run.find(buf, pos)
		if s < 0 {
			break
		}
		got = append(got, s)
		pos = s + 1
	}
	// Runs of 3 or more start at 4 (1234) — and, searching on from 5,
	// 5 (234) — and 13 (567); "12" and "99" are too short.
	if want := []int{4, 5, 13}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("runs at %v, want %v", got, want)
	}
}

// FuzzClassPrefilter builds patterns out of class atoms, counts and
// anchors (the shapes the class prefilter takes on) and checks the
// search's lines against the engine run on every line: the prefilter must
// never drop a matching line.
func FuzzClassPrefilter(f *testing.F) {
	f.Add([]byte{0, 1}, []byte("id 123456789\nx 12345678\n"))         // \d{9}
	f.Add([]byte{2, 0, 1, 2}, []byte("1234567890\n 123456789 \n"))    // \b\d{9}\b
	f.Add([]byte{5, 3, 4, 10}, []byte("deadbeefx cafe\nDEADBEEFX\n")) // (?i)[0-9a-f]{4,}x
	f.Add([]byte{6, 1}, []byte("é日本語ab\xff\xfecdefgh\n"))             // \pL{9}
	f.Add([]byte{5, 10, 18, 0, 1}, []byte("xK123456789\nX\u212A123456789\n"))
	atoms := []string{`\d`, `{9}`, `\b`, `[0-9a-f]`, `{4,}`, `(?i)`, `\pL`, `+`, `[^a-z\n]`, `{2}`, `x`, `\s`, `|`, `(`, `)`, `.`, `?`, `[[:upper:]]`, `\x{212A}`, `$`, `^`}
	f.Fuzz(func(t *testing.T, shape, data []byte) {
		if len(shape) > 24 || len(data) > 4096 {
			return
		}
		var b strings.Builder
		for _, c := range shape {
			b.WriteString(atoms[int(c)%len(atoms)])
		}
		checkAgainstReference(t, data, b.String(), true, nil)
	})
}

// TestSearchMatchesRipgrep compares the lines search_workspace finds with
// those ripgrep finds, file by file and line by line, for the benchmark's
// patterns over a part of the Go source tree. It needs rg
// (apt-get install ripgrep) and GOROOT/src.
func TestSearchMatchesRipgrep(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("ripgrep is not installed: apt-get install ripgrep")
	}
	src := goSource()
	if src == "" {
		t.Skip("no Go source tree at GOROOT/src")
	}
	dirs := []string{"io", "bufio", "strconv", "time", "context"}
	ws, err := workspace.New([]string{src})
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Workspace: ws}
	for _, p := range goSourcePatterns {
		ours := map[string]bool{}
		for _, d := range dirs {
			req, bad := Search{}.withDefaults().parse(env, ArgsOf(map[string]any{"query": p.query, "isRegex": p.regex, "directory": d}))
			if bad != nil {
				t.Fatalf("%s: %s", p.name, bad.Content)
			}
			hits, _, err := Search{}.withDefaults().find(context.Background(), env, req)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				data, err := os.ReadFile(h.abs)
				if err != nil {
					t.Fatal(err)
				}
				line, last := 1, 0
				req.q.scan(data, func(start, _, _ int) bool {
					line += bytes.Count(data[last:start], []byte{'\n'})
					last = start
					ours[fmt.Sprintf("%s:%d", filepath.ToSlash(h.rel), line)] = true
					return true
				})
			}
		}
		args := rgArgsFor(p.query, p.regex, "")
		cmd := exec.Command(rg, append(args[:len(args)-1], dirs...)...)
		cmd.Dir = src
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: rg: %v", p.name, err)
		}
		theirs := map[string]bool{}
		for _, l := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
			if parts := strings.SplitN(l, ":", 3); len(parts) == 3 {
				theirs[parts[0]+":"+parts[1]] = true
			}
		}
		if len(theirs) == 0 {
			t.Fatalf("%s: ripgrep found nothing: the test compares nothing", p.name)
		}
		for k := range theirs {
			if !ours[k] {
				t.Errorf("%s: ripgrep finds %s, search_workspace does not", p.name, k)
			}
		}
		for k := range ours {
			if !theirs[k] {
				t.Errorf("%s: search_workspace finds %s, ripgrep does not", p.name, k)
			}
		}
		t.Logf("%s: %d lines, the same", p.name, len(ours))
	}
}

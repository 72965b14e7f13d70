package safety

import (
	"os/exec"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// wordPrelude sets the variables the word cases use, identically for the
// analyser and for real bash.
const wordPrelude = `x=/; c='rm -rf /'; e=; IFS2=,; set -- a 'b c' 'x*y'; `

// wordCases are words whose expansion the analyser must get exactly as
// bash does; quoting and escaping tricks must not change the result.
var wordCases = []string{
	`rm`, `\rm`, `"rm"`, `'r'm`, `r""m`, `r\m`, `"r"'m'`, `$'\x72\x6d'`, `$'\162\155'`, `$'r\x6d'`,
	`{rm,-rf,/}`, `r{m,}`, `x{1..3}`, `{a,b}{c,d}`, `rm${IFS}-rf${IFS}/`, `rm$IFS-rf$IFS/`,
	`$c`, `"$c"`, `$x`, `"$x"`, `${x}y`, `$x$x`, `$e`, `"$e"`, `a${e}b`,
	`~`, `~/x`, `"~"`, `'~'`, `~root`, `a\ b`, `"a\"b"`, `'a\b'`, `"a\\b"`, `"a\$b"`, `$'a\nb'`, `$'100%'`,
	`"$@"`, `$@`, `"$*"`, `$*`, `$1`, `"${2}"`, `$#`, `\*`, `'*'`, `"*"`,
}

// analyserFields runs the prelude through the analyser and expands the
// arguments of the final printf, returning them as <f1><f2>….
func analyserFields(t *testing.T, script string) string {
	t.Helper()
	f, err := parse(script)
	if err != nil {
		t.Fatalf("parse %q: %v", script, err)
	}
	a := newAnalyzer(Options{Home: "/home/u", Cwd: "/tmp"})
	sc := newScope(script, &a.opts)
	a.walkStmts(sc, f.Stmts[:len(f.Stmts)-1], nil)
	last := f.Stmts[len(f.Stmts)-1].Cmd.(*syntax.CallExpr)
	var b strings.Builder
	b.WriteString("<_>")
	for _, w := range last.Args[3:] {
		fs, _ := a.expandWord(sc, w)
		for _, fl := range fs {
			if fl.dynamic {
				t.Fatalf("word %q expanded as computed; want static", a.text(sc, w))
			}
			b.WriteString("<" + fl.value + ">")
		}
	}
	return b.String()
}

func TestExpandWordMatchesBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	for _, w := range wordCases {
		t.Run(w, func(t *testing.T) {
			// The leading _ keeps printf from printing its format once
			// more when the word expands to no fields at all.
			script := wordPrelude + `printf '<%s>' _ ` + w
			cmd := exec.Command(bash, "--norc", "--noprofile", "-c", script)
			cmd.Env = []string{"HOME=/home/u", "PATH=/usr/bin:/bin"}
			cmd.Dir = t.TempDir() // empty, so a glob matches nothing and stays as written
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("bash -c %q: %v", script, err)
			}
			if got := analyserFields(t, script); got != string(out) {
				t.Errorf("word %s: analyser %q, bash %q", w, got, out)
			}
		})
	}
}

func TestExpandWordComputed(t *testing.T) {
	cases := []struct {
		word     string
		lead     bool
		computed bool // as a command name
	}{
		{`$UNSET`, true, true},
		{`"$UNSET"`, true, true},
		{`$(echo rm)`, true, true},
		{"`echo rm`", true, true},
		{`/bin/$UNSET`, false, true},
		{`${UNSET:-rm}`, true, true},
		{`$((1+1))`, true, true},
		{`$1`, true, true},
		{`"$UNSET/bin/tool"`, true, false},
	}
	for _, tc := range cases {
		t.Run(tc.word, func(t *testing.T) {
			script := "printf x " + tc.word
			f, err := parse(script)
			if err != nil {
				t.Fatal(err)
			}
			a := newAnalyzer(Options{})
			sc := newScope(script, &a.opts)
			fs, _ := a.expandWord(sc, f.Stmts[0].Cmd.(*syntax.CallExpr).Args[2])
			if len(fs) != 1 {
				t.Fatalf("got %d fields, want 1", len(fs))
			}
			got := fs[0]
			if !got.dynamic || got.lead != tc.lead || computedName(got) != tc.computed {
				t.Errorf("field %+v: want dynamic, lead=%v, computed name=%v", got, tc.lead, tc.computed)
			}
		})
	}
}

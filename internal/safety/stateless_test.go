package safety

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// statelessCases: is the command stateless, and with which names (nil:
// not checked, see statelessNames). The first blocks are internal/shell's
// tables from the hand lexer (TestMayChangeState, stateskip_test.go),
// then the reviewer's attacks, then what the parse decides besides.
var statelessCases = map[string]bool{
	// Stateless under the old scan and now.
	"echo step-1 >> steps.txt":           true,
	"go test ./...":                      true,
	"ls -la | grep foo && cat x || true": true,
	`printf '%s\n' "a b" 'c;d'`:          true,
	"git status; git diff --stat":        true,
	"sleep 1 & echo $!":                  true,
	"echo hi >&2 2>&1":                   true,
	"[ -f go.mod ] && echo yes":          true,
	"grep -rn 'cd x' .":                  true,
	"go test -v ./...":                   true,
	"grep -v x f":                        true,
	"ls -l | grep x && ls; echo y":       true,
	"":                                   true, // nothing runs
	"true\n\n":                           true,

	// Stateful under the old scan and now.
	"cd sub": false, "export A=1": false, "A=1": false, "A=1 make": false, "printf -v x 1": false,
	"ls; printf -vx 1": false, "echo ${x:=1}": false, "echo $((x++))": false, "echo $[x=1]": false,
	"true $[x++]": false, "((x++))": false, "(cd x)": false, "{ cd x; }": false, "source a": false,
	". a": false, "eval x": false, "if true; then :; fi": false, "for i in 1; do :; done": false,
	"echo 'unterminated": false, "echo a # ; cd x": false, "$CMD": false, `\cd x`: false,
	"exec ls": false, "read x": false, "set -e": false, "ls; cd x": false, "ls && export X": false,
	"ls | read x": false, "echo $(cd x)": false, "cat <<EOF\nx\nEOF": false,
	`echo \' ; cd x ; echo \'`: false, "kill $$": false,
	"exit": false, "true\ncd x": false, "alias x=y": false, "unset X": false,
	"shopt -s globstar": false,
	// printf's -v after quote removal, or what could become it.
	`printf "-v" POSIXLY_CORRECT y`: false, `printf -"v" TMOUT 1`: false, `printf '-v' x 1`: false,
	`printf "-"v x 1`: false, `printf $o x 1`: false, `printf "$o" x 1`: false, `printf -[v] x 1`: false,
	`ls; printf -? x 1`: false, `printf \-v x 1`: false, `printf {-v,} x 1`: false, `printf [-]v x 1`: false,
	`printf ~- x 1`: false, `printf -- -v x`: false, `printf x "-v"`: false,

	// Stateful now, stateless under the old scan (it was wrong, or could be).
	"echo $HOME $PATH":              false, // a session's nameref makes $x assign: declare -n HOME='a[i++]'
	`echo "$x"`:                     false,
	"test -v X":                     false, // test -v 'a[TMOUT=1]' assigns TMOUT
	"test -v 'a[TMOUT=1]'":          false,
	"[ -v 'a[POSIXLY_CORRECT=1]' ]": false,
	"[ -R x ]":                      false,
	"test -f $f":                    false, // $f could be -v, the next word a[x=1]
	"test *":                        false, // files named -v and a[x=1]
	"[ -f {-v,a[x=1]} ]":            false,
	"test ~- x":                     false,
	"! grep x f":                    false, // negation: refused, as before (! was a shell word)
	"echo $_":                       false, // _ is a name, not a special parameter

	// What the parse decides besides (the old scan said stateful: the
	// first block is what it deliberately allows now, see docs/shell.md).
	`echo "\" ; cd x ; echo \""`:            true, // one quoted word: the old scan gave up at the backslash
	"awk '{print $1}' f":                    true, // braces and $ inside quotes are text
	"grep -E '(a|b)' f":                     true,
	"echo '${x:=1}' '$(cd x)' \"<<\"":       true,
	`"ls" -l`:                               true, // quoted program name: bash looks up ls (function check too)
	`l's' -l`:                               true,
	`\ls -l`:                                true, // no alias expansion; the function check still sees ls
	`find . -name '*.go' -exec wc -l {} \;`: true,
	"echo {a,b}":                            true, // brace expansion of arguments makes more arguments
	"&>f ls":                                true, // a redirection before the name
	"ls &>f; ls &>>f":                       true,
	"ls 2>&1 |& cat":                        true,
	"echo a#b '#' $#":                       true, // a '#' inside a word is no comment
	"go test \\\n  ./...":                   true, // a line continuation
	"echo $? $! $$ $@ $* $- $0 $1":          true,
	`echo "$@"`:                             true,
	"echo $'a\\tb'":                         true,
	"ls 10>&-":                              true, // bash undoes a simple command's redirections
	"printf '%s\\n' a b":                    true,
	"[ -f go.mod ]":                         true,
	"test a = b":                            true,

	// Stateful: constructs the parse tells apart.
	"ls # comment":            false, // a comment: stateful (text bash could read otherwise)
	"# only a comment":        false,
	"ls {fd}>f":               false, // {fd}> assigns fd
	"grep x <<< 'y'":          false, // here-string
	"cat <<-E\n\tx\nE":        false,
	">f":                      false, // a redirection alone
	"echo ${x}":               false,
	"echo ${#x}":              false,
	"echo ${!x}":              false,
	"echo ${a[i++]}":          false,
	"echo `cd x`":             false,
	"cat <(ls)":               false,
	"ls > >(cat)":             false,
	"time ls":                 false,
	"coproc ls":               false,
	"declare -n r=x":          false,
	"let x=1":                 false,
	"[[ -v x ]]":              false,
	"f() { :; }":              false,
	"case x in x) ;; esac":    false,
	"while false; do :; done": false,
	"ls @(a|b)":               false,
	"A=1 ls; ls":              false,
	`"cd" x`:                  false, // the builtin cd, quoted
	`"a b"`:                   false, // not a plain name
	"'a[$(id)]'":              false, // a name the driver's alias check could evaluate
	"l? x":                    false, // a pattern as the name
	"~/bin/tool":              false,
	"{ls,x}":                  false, // brace expansion of the name
	"$'ls'":                   false,
	"command ls":              false,
	"builtin echo x":          false,
	"wait":                    false,
	"enable -n echo":          false,
	"echo $(":                 false, // unparseable
	// $"…": bash translates it, from a catalogue the session may name.
	`echo $"x"`: false, `$"ls" x`: false, `echo "a"$"b"`: false,
	// Bytes bash reads otherwise than the parser (rawbytes.go).
	"ls\r": false, "echo \\\r\nls": false, "echo x\r\n": false, "echo a\fb": false, "echo a\vb": false,
	"echo a\x00b": false, "echo a\x01b": false, "echo a\x7fb": false, "echo '\r'": false,
	"echo a\xffb": false, // not UTF-8: the parser refuses it
	"ls; fi":      false,
}

// statelessNames are the names of some stateless cases.
var statelessNames = map[string][]string{
	"ls -l | grep x && ls; echo y": {"ls", "grep", "echo"},
	`"ls" -l`:                      {"ls"},
	`\ls -l`:                       {"ls"},
	"&>f ls":                       {"ls"},
	"ls >|f":                       {"ls"}, // the old lexer made f a command: a redirection, a pipe, f
	"ls 2>&1 |& cat &":             {"ls", "cat"},
	"[ -f go.mod ] && echo yes":    {"[", "echo"},
	"":                             nil,
}

func TestStateless(t *testing.T) {
	for cmd, want := range statelessCases {
		f := Facts(cmd)
		if f.Stateless != want {
			t.Errorf("%q: stateless %v, want %v", cmd, f.Stateless, want)
		}
		if !f.Stateless && f.Names != nil {
			t.Errorf("%q: stateful with names %q", cmd, f.Names)
		}
	}
	for cmd, want := range statelessNames {
		if f := Facts(cmd); !f.Stateless || !slices.Equal(f.Names, want) {
			t.Errorf("%q: %v %q, want the names %q", cmd, f.Stateless, f.Names, want)
		}
	}
}

// TestStatelessBoundsTheNames: a command with more distinct names than
// bash is asked to check is judged stateful, and sends no names (a
// 40 000-name command took minutes, holding the shell).
func TestStatelessBoundsTheNames(t *testing.T) {
	var b strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&b, "c%d;", i)
	}
	if f := Facts(b.String()); f.Stateless || len(f.Names) != 0 {
		t.Errorf("40000 names: stateless %v, %d names sent", f.Stateless, len(f.Names))
	}
	var ok []string
	for i := range MaxStatelessNames {
		ok = append(ok, fmt.Sprintf("c%d", i))
	}
	cmd := strings.Join(ok, "; ") + "; " + strings.Join(ok, " | ")
	if f := Facts(cmd); !f.Stateless || !slices.Equal(f.Names, ok) {
		t.Errorf("%d names, each twice: stateless %v, %d names", MaxStatelessNames, f.Stateless, len(f.Names))
	}
	if f := Facts(cmd + "; one_more"); f.Stateless {
		t.Errorf("%d names: stateless", MaxStatelessNames+1)
	}
}

// TestStatelessCommentsThroughout: a '#' outside every word is a comment
// wherever it stands, also with many words before it (the sweep of
// hashesInWords), and one inside a word anywhere is none.
func TestStatelessCommentsThroughout(t *testing.T) {
	words := strings.Repeat("a#b '#' ", 2000)
	for cmd, want := range map[string]bool{
		"echo " + words:                  true,
		"echo " + words + "#":            false,
		"echo " + words + "; echo #x":    false,
		"echo #x " + words:               false,
		"echo x#" + words + " >f#":       true,
		"ls >f #" + words:                false,
		"echo " + words + "\n#x\necho y": false,
	} {
		if f := Facts(cmd); f.Stateless != want {
			t.Errorf("%.40q…: stateless %v, want %v", cmd, f.Stateless, want)
		}
	}
}

// FuzzStateless checks the invariants of the stateless rule on any
// input: no panic; a stateless command has at most MaxStatelessNames
// distinct names, each a plain name that is no builtin but the harmless
// ones, and parses; and text that makes a command stateful (an
// assignment, a subshell, a group, a substitution, a here-document)
// added to a stateless one makes it stateful.
func FuzzStateless(f *testing.F) {
	for _, cmd := range checkCorpus() { // statelessCases too
		f.Add(cmd)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		sf := Facts(cmd)
		if !sf.Stateless {
			if sf.Names != nil {
				t.Fatalf("%q: stateful with names %q", cmd, sf.Names)
			}
			return
		}
		if _, err := parse(cmd); err != nil {
			t.Fatalf("%q: stateless, but unparseable: %v", cmd, err)
		}
		if len(sf.Names) > MaxStatelessNames {
			t.Fatalf("%q: %d names", cmd, len(sf.Names))
		}
		for i, n := range sf.Names {
			if !PlainCommandName(n) || (shellWords[n] && !harmlessBuiltins[n]) || slices.Contains(sf.Names[:i], n) {
				t.Fatalf("%q: name %q", cmd, n)
			}
		}
		// (Two newlines: a trailing backslash joins the first.)
		for _, add := range []string{"A=1", "x=1 ls", "(ls)", "{ ls; }", "echo $(ls)", "echo `ls`",
			"echo ${x:=1}", "echo $((x=1))", "cat <<E\nE", "f() { ls; }", "cd /", "ls {fd}>f", "printf -v x y"} {
			if Facts(cmd + "\n\n" + add).Stateless {
				t.Fatalf("%q: stateless", cmd+add)
			}
		}
	})
}

func BenchmarkStatelessHuge(b *testing.B) {
	var sb strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&sb, "c%d;", i)
	}
	cmd := sb.String()
	for b.Loop() {
		Facts(cmd)
	}
}

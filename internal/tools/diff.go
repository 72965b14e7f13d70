package tools

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"
)

// maxDiffBytes is the largest file (old or new) diffed line by line; past
// it, or for binary content, the change counts as all lines replaced.
const maxDiffBytes = 4 << 20

// lineDiff compares a file's old and new content: the unified diff shown
// in an approval request, and the lines added and removed (+N −N).
// existed is false for a file about to be created.
func lineDiff(label string, old, new []byte, existed bool) (diff string, adds, dels int) {
	from, to := "a/"+label, "b/"+label
	if !existed {
		from = "/dev/null"
	}
	if len(old) > maxDiffBytes || len(new) > maxDiffBytes || !textual(old) || !textual(new) {
		adds, dels = countTextLines(new), countTextLines(old)
		return fmt.Sprintf("--- %s\n+++ %s\n(no line diff: the content is binary or over %d MB; %d lines replaced by %d)\n",
			from, to, maxDiffBytes>>20, dels, adds), adds, dels
	}
	edits := udiff.Lines(string(old), string(new))
	u, err := udiff.ToUnifiedDiff(from, to, string(old), edits, 3)
	if err != nil {
		adds, dels = countTextLines(new), countTextLines(old)
		return fmt.Sprintf("--- %s\n+++ %s\n(no line diff: %v)\n", from, to, err), adds, dels
	}
	for _, h := range u.Hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Insert:
				adds++
			case udiff.Delete:
				dels++
			}
		}
	}
	return u.String(), adds, dels
}

func textual(b []byte) bool { return utf8.Valid(b) && bytes.IndexByte(b, 0) < 0 }

// countTextLines counts lines as a person would: a final line without a
// newline counts, an empty file has none.
func countTextLines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// diffStat renders +N −N.
func diffStat(adds, dels int) string { return fmt.Sprintf("+%d −%d", adds, dels) }

// readOld reads the file a write would replace. A missing file is not an
// error (existed is false); a directory or special file is.
func readOld(abs string) (old []byte, info fs.FileInfo, err error) {
	info, err = os.Lstat(abs)
	if os.IsNotExist(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	switch {
	case info.IsDir():
		return nil, nil, fmt.Errorf("it is a directory; give a file name inside it")
	case !info.Mode().IsRegular():
		return nil, nil, fmt.Errorf("it is not a regular file (%s); write_file replaces only regular files", info.Mode().Type())
	}
	old, err = os.ReadFile(abs)
	return old, info, err
}

// missingDirs lists the directories above abs that do not exist yet,
// outermost first: the ones a write will create.
func missingDirs(dir string) []string {
	var out []string
	for {
		if _, err := os.Lstat(dir); err == nil {
			break
		}
		out = append(out, dir)
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// keptMode is the mode a replaced file keeps: its permissions and the
// setuid, setgid and sticky bits.
func keptMode(info fs.FileInfo) fs.FileMode {
	if info == nil {
		return 0o644
	}
	return info.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
}

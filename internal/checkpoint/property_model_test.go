package checkpoint

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// This file is the reference model the property test checks the package
// against: a workspace tree and, per snapshot, the original and written
// content, updated by keep and undo as docs/checkpoints.md specifies. It
// shares no code with the package: hunk boundaries come from the review
// (and are checked against the model's contents), placement in the current
// file is a brute-force search.

type mfile struct {
	data []byte
	mode fs.FileMode
}

type mkey struct{ ckpt, path string }

type msnap struct {
	existed  bool
	orig     []byte
	written  []byte
	resolved bool
}

type model struct {
	files   map[string]mfile
	dirs    map[string]bool // every directory below the root
	created map[string]bool // directories olly created
	snaps   map[mkey]*msnap
}

func newModel() *model {
	return &model{files: map[string]mfile{}, dirs: map[string]bool{}, created: map[string]bool{}, snaps: map[mkey]*msnap{}}
}

// put records a file the person had before the agent ran.
func (m *model) put(p string, data []byte, mode fs.FileMode) {
	m.files[p] = mfile{data, mode}
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		m.dirs[d] = true
	}
}

// write records an agent write in checkpoint ckpt.
func (m *model) write(ckpt, p string, data []byte) {
	k := mkey{ckpt, p}
	old, exists := m.files[p]
	if m.snaps[k] == nil {
		s := &msnap{existed: exists}
		if exists {
			s.orig = bytes.Clone(old.data)
		}
		m.snaps[k] = s
	}
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		if !m.dirs[d] {
			m.dirs[d], m.created[d] = true, true
		}
	}
	mode := fs.FileMode(0o644)
	if exists {
		mode = old.mode
	}
	m.files[p] = mfile{bytes.Clone(data), mode}
	m.snaps[k].written = bytes.Clone(data)
}

// remove deletes a created file and the created directories it empties.
func (m *model) remove(p string) {
	delete(m.files, p)
	for d := path.Dir(p); d != "." && m.created[d] && m.dirEmpty(d); d = path.Dir(d) {
		delete(m.dirs, d)
	}
}

func (m *model) dirEmpty(d string) bool {
	for f := range m.files {
		if strings.HasPrefix(f, d+"/") {
			return false
		}
	}
	for o := range m.dirs {
		if strings.HasPrefix(o, d+"/") {
			return false
		}
	}
	return true
}

// mspan is a hunk in model terms, derived from the review's hunks.
type mspan struct{ oldFrom, oldTo, newFrom, newTo int }

// spansOf checks that the review's hunks turn the model's original into
// its written content, and returns where each hunk sits in both.
func spansOf(t *testing.T, fr FileReview, s *msnap) []mspan {
	t.Helper()
	o := splitT(s.orig)
	var res []string
	var out []mspan
	i := 0
	for _, h := range fr.Hunks {
		from := h.OldStart - 1
		if from < i || from+h.OldLines > len(o) {
			t.Fatalf("%s hunk %d at %d+%d does not fit the original (%d lines, at %d)", fr.Path, h.Number, h.OldStart, h.OldLines, len(o), i)
		}
		if got := strings.Join(o[from:from+h.OldLines], ""); got != h.OldText {
			t.Fatalf("%s hunk %d old text %q, the model's original has %q", fr.Path, h.Number, h.OldText, got)
		}
		res = append(res, o[i:from]...)
		sp := mspan{oldFrom: from, oldTo: from + h.OldLines, newFrom: len(res)}
		res = append(res, splitT([]byte(h.NewText))...)
		sp.newTo = len(res)
		out = append(out, sp)
		i = from + h.OldLines
	}
	res = append(res, o[i:]...)
	if got := strings.Join(res, ""); got != string(s.written) {
		t.Fatalf("%s: the hunks applied to the model's original give\n%q\nbut the model wrote\n%q", fr.Path, got, s.written)
	}
	return out
}

// splitT splits after every "\n" (an independent splitLines).
func splitT(b []byte) []string {
	parts := strings.SplitAfter(string(b), "\n")
	if len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// place finds where sp's written lines are in cur by brute force: all
// places where the hunk with three lines of context either side matches
// (at the start or end of the file when its context is cut short there),
// the nearest to the hunk's own line winning, the earlier on a tie.
func place(written, cur []string, sp mspan) (int, bool) {
	lo := max(0, sp.newFrom-3)
	hi := min(len(written), sp.newTo+3)
	pat := written[lo:hi]
	best, found := 0, false
	for i := 0; i+len(pat) <= len(cur); i++ {
		if sp.newFrom < 3 && i != 0 || sp.newTo+3 > len(written) && i+len(pat) != len(cur) {
			continue
		}
		same := true
		for j := range pat {
			same = same && cur[i+j] == pat[j]
		}
		if !same {
			continue
		}
		if !found || abs(i-lo) < abs(best-lo) {
			best, found = i, true
		}
	}
	return best + (sp.newFrom - lo), found
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func spliceT(lines []string, from, to int, repl []string) []string {
	out := append([]string{}, lines[:from]...)
	out = append(out, repl...)
	return append(out, lines[to:]...)
}

// undoSpan reverts sp in the model's file and written content; false is a
// conflict.
func (m *model) undoSpan(p string, s *msnap, sp mspan) bool {
	w, o := splitT(s.written), splitT(s.orig)
	cur := splitT(m.files[p].data)
	at, ok := place(w, cur, sp)
	if !ok {
		return false
	}
	cur = spliceT(cur, at, at+sp.newTo-sp.newFrom, o[sp.oldFrom:sp.oldTo])
	f := m.files[p]
	f.data = []byte(strings.Join(cur, ""))
	m.files[p] = f
	s.written = []byte(strings.Join(spliceT(w, sp.newFrom, sp.newTo, o[sp.oldFrom:sp.oldTo]), ""))
	return true
}

// finishCreated removes a created file nothing of the agent's is left in,
// when it is empty.
func (m *model) finishCreated(p string, s *msnap) {
	if s.existed || len(s.orig) != 0 || len(s.written) != 0 {
		return
	}
	s.resolved = true
	if f, ok := m.files[p]; ok && len(f.data) == 0 {
		m.remove(p)
	}
}

// checkTree compares the workspace on disk with the model, byte for byte,
// mode for mode, directory for directory.
func (m *model) checkTree(t *testing.T, root, when string) {
	t.Helper()
	gotFiles := map[string]mfile{}
	gotDirs := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			gotDirs[rel] = true
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		gotFiles[rel] = mfile{data, info.Mode() & keptBits}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	for p, want := range m.files {
		got, ok := gotFiles[p]
		switch {
		case !ok:
			problems = append(problems, p+" is missing")
		case !bytes.Equal(got.data, want.data):
			problems = append(problems, p+" differs:\n got "+quote(got.data)+"\nwant "+quote(want.data))
		case got.mode != want.mode:
			problems = append(problems, p+" has mode "+got.mode.String()+", want "+want.mode.String())
		}
	}
	for p := range gotFiles {
		if _, ok := m.files[p]; !ok {
			problems = append(problems, p+" should not exist")
		}
	}
	for d := range m.dirs {
		if !gotDirs[d] {
			problems = append(problems, "directory "+d+" is missing")
		}
	}
	for d := range gotDirs {
		if !m.dirs[d] {
			problems = append(problems, "directory "+d+" should not exist")
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		t.Fatalf("%s:\n%s", when, strings.Join(problems, "\n"))
	}
}

func quote(b []byte) string {
	if len(b) > 300 {
		return strings.ReplaceAll(string(b[:300]), "\n", "⏎") + "…"
	}
	return strings.ReplaceAll(string(b), "\n", "⏎")
}

package checkpoint

import (
	"bytes"
	"testing"
)

// FuzzHunkAlgebra checks, for any two texts, that the agent's hunks are a
// faithful diff: splitting is lossless, every hunk is found at its own
// place in an unedited file, undoing them all (bottom up, as undo does)
// gives the original back byte for byte, and keeping them one at a time
// ends with nothing left and the original equal to what was written.
func FuzzHunkAlgebra(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nB\nc\n"))
	f.Add([]byte(""), []byte("new\nfile"))
	f.Add([]byte("x\nx\nx\nx\n"), []byte("x\ny\nx\nx\nx\n"))
	f.Add([]byte("no newline"), []byte("no newline\n"))
	f.Add([]byte("1\n2\n3\n4\n5\n6\n7\n8\n9\n"), []byte("0\n2\n3\n4\n5\n6\n7\n8\n10\n"))
	f.Add([]byte("\r\nwin\r\n"), []byte("\r\nwin\r\nmore\r\n"))
	f.Fuzz(func(t *testing.T, orig, written []byte) {
		if !textual(orig) || !textual(written) {
			return
		}
		if !bytes.Equal(joinLines(splitLines(orig)), orig) {
			t.Fatalf("split/join lost bytes of %q", orig)
		}
		o, w := splitLines(orig), splitLines(written)
		spans := diffSpans(o, w)
		if len(spans) == 0 && !bytes.Equal(orig, written) {
			t.Fatal("no hunks between different texts")
		}
		fl := &file{snap: snapFor(), orig: orig, written: written, cur: bytes.Clone(written), exists: true}
		fl.analyse()
		for i, s := range fl.spans {
			from, to, reason := locate(fl.writtenL, splitLines(fl.cur), s)
			if reason != "" || from != s.newFrom || to != s.newTo {
				t.Fatalf("hunk %d (%+v) located at %d-%d (%s) in the unedited file", i+1, s, from, to, reason)
			}
		}
		if cs := fl.undoAll(); len(cs) != 0 {
			t.Fatalf("conflicts undoing an unedited file: %v", cs)
		}
		if !bytes.Equal(fl.cur, orig) || !bytes.Equal(fl.written, orig) {
			t.Fatalf("undo all gave %q, want %q", fl.cur, orig)
		}

		k := &file{snap: snapFor(), orig: orig, written: written, cur: written, exists: true}
		k.analyse()
		// Keeping a hunk diffs again, which may cut the rest differently;
		// each keep must still bring the original closer to what was
		// written, so keeping the last hunk over and over ends.
		for n := 0; len(k.spans) > 0; n++ {
			if n > len(o)+len(w) {
				t.Fatalf("still %d hunks after %d keeps", len(k.spans), n)
			}
			if err := k.keepHunk(len(k.spans)); err != nil {
				t.Fatal(err)
			}
		}
		if len(k.spans) != 0 || !bytes.Equal(k.orig, written) {
			t.Fatalf("after keeping every hunk: %d left, original %q, want %q", len(k.spans), k.orig, written)
		}
	})
}

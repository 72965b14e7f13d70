//go:build linux

package exewarm

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/exetrim"
)

func armedOrSkip(t *testing.T) [][2]uintptr {
	t.Helper()
	spans := exetrim.Spans()
	if len(spans) == 0 {
		_, why := exetrim.Status()
		t.Skipf("exetrim is not armed here (%s): nothing to record", why)
	}
	return spans
}

// learned saves a record twice (learning, then ready) and returns its path.
func learned(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "pages")
	for range 2 {
		if err := Save(path); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// TestLearnedOverTwoRuns: the first record is learning, and already
// mapped back (the second run of a state folder needs its pages as much as
// later ones); saving again makes it ready.
func TestLearnedOverTwoRuns(t *testing.T) {
	spans := armedOrSkip(t)
	path := filepath.Join(t.TempDir(), "pages")
	if err := Save(path); err != nil {
		t.Fatal(err)
	}
	runs, kind, ok := load(path, spans)
	if !ok || kind != learning {
		t.Fatalf("first record: %q, %v; want learning", kind, ok)
	}
	want := 0
	for _, r := range runs {
		want += r.n
	}
	if n := Prefault(path); n == 0 || n != want {
		t.Fatalf("a learning record of %d pages mapped %d", want, n)
	}
	if err := Save(path); err != nil {
		t.Fatal(err)
	}
	if _, kind, ok := load(path, spans); !ok || kind != ready {
		t.Fatalf("second record: %q, %v; want ready", kind, ok)
	}
}

func TestIntersect(t *testing.T) {
	a := []run{{0, 0, 10}, {0, 20, 5}, {1, 0, 3}}
	b := []run{{0, 5, 20}, {1, 2, 4}, {2, 0, 1}}
	got := intersect(a, b)
	want := []run{{0, 5, 5}, {0, 20, 5}, {1, 2, 1}}
	if len(got) != len(want) {
		t.Fatalf("intersect = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("intersect = %v, want %v", got, want)
		}
	}
}

func countPages(runs []run) int {
	n := 0
	for _, r := range runs {
		n += r.n
	}
	return n
}

// TestSaveTrimPrefault: what Save records comes back mapped with
// Prefault after a trim dropped it, without a page fault per page.
func TestSaveTrimPrefault(t *testing.T) {
	spans := armedOrSkip(t)
	path := learned(t)
	saved, kind, ok := load(path, spans)
	if !ok || kind != ready || countPages(saved) == 0 {
		t.Fatalf("the record does not load (%v), is %q or is empty: %d runs", ok, kind, len(saved))
	}
	exetrim.Trim()
	after, err := mapped(spans)
	if err != nil {
		t.Fatal(err)
	}
	if countPages(after) >= countPages(saved) {
		t.Fatalf("the trim left %d pages mapped of %d: nothing to test", countPages(after), countPages(saved))
	}
	if n := Prefault(path); n != countPages(saved) {
		t.Fatalf("Prefault asked for %d pages, the record holds %d", n, countPages(saved))
	}
	now, err := mapped(spans)
	if err != nil {
		t.Fatal(err)
	}
	in := map[[2]int]bool{}
	for _, r := range now {
		for p := r.start; p < r.start+r.n; p++ {
			in[[2]int{r.span, p}] = true
		}
	}
	missing := 0
	for _, r := range saved {
		for p := r.start; p < r.start+r.n; p++ {
			if !in[[2]int{r.span, p}] {
				missing++
			}
		}
	}
	if missing > 0 {
		t.Errorf("%d of the %d recorded pages are not mapped after Prefault", missing, countPages(saved))
	}
}

// TestOtherExecutableIgnored: a record whose identity line is not this
// executable's maps nothing.
func TestOtherExecutableIgnored(t *testing.T) {
	armedOrSkip(t)
	path := learned(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(b), "\n", 3)
	lines[1] = "1 2 3 4"
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	if n := Prefault(path); n != 0 {
		t.Errorf("a record of another executable mapped %d pages", n)
	}
	if n := Prefault(filepath.Join(t.TempDir(), "none")); n != 0 {
		t.Errorf("no record mapped %d pages", n)
	}
}

// TestOldRecordIgnored: a record older than maxAge is learned again.
func TestOldRecordIgnored(t *testing.T) {
	armedOrSkip(t)
	path := learned(t)
	if n := Prefault(path); n == 0 {
		t.Fatal("a fresh record mapped nothing")
	}
	old := time.Now().Add(-maxAge - time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if n := Prefault(path); n != 0 {
		t.Errorf("a record older than %s mapped %d pages", maxAge, n)
	}
}

// TestParseRunsRejects: a run outside its span, an unknown span, a bad
// line or too many pages makes the whole record unused.
func TestParseRunsRejects(t *testing.T) {
	spans := [][2]uintptr{{0x1000, 0x11000}, {0x20000, 0x22000}} // 16 and 2 pages
	for _, tc := range []struct {
		text string
		ok   bool
	}{
		{"0 0 16\n1 0 2\n", true},
		{"0 15 1\n", true},
		{"", true},
		{"0 15 2\n", false},
		{"0 16 1\n", false},
		{"2 0 1\n", false},
		{"1 0 0\n", false},
		{"0 -1 2\n", false},
		{"0 0\n", false},
		{"0 x 1\n", false},
		{"0 0 99999999999999999999\n", false},
	} {
		runs, ok := parseRuns(bufio.NewScanner(strings.NewReader(tc.text)), spans, 0x1000)
		if ok != tc.ok {
			t.Errorf("%q: ok %v (runs %v), want %v", tc.text, ok, runs, tc.ok)
		}
	}
	big := [][2]uintptr{{0, 0x1000 * (maxPages + 2)}}
	if _, ok := parseRuns(bufio.NewScanner(strings.NewReader("0 0 16385\n")), big, 0x1000); ok {
		t.Error("a record over maxPages was accepted")
	}
}

func FuzzParseRuns(f *testing.F) {
	f.Add("0 0 16\n1 0 2\n")
	f.Add("0 15 2\n")
	f.Add("1 1 1\n0 3 4 5\n")
	spans := [][2]uintptr{{0x1000, 0x11000}, {0x20000, 0x22000}}
	f.Fuzz(func(t *testing.T, text string) {
		runs, ok := parseRuns(bufio.NewScanner(strings.NewReader(text)), spans, 0x1000)
		if !ok {
			return
		}
		total := 0
		for _, r := range runs {
			size := int((spans[r.span][1] - spans[r.span][0]) / 0x1000)
			if r.n <= 0 || r.start < 0 || r.start+r.n > size {
				t.Fatalf("accepted run %+v outside span of %d pages", r, size)
			}
			total += r.n
		}
		if total > maxPages {
			t.Fatalf("accepted %d pages", total)
		}
	})
}

// TestRunSavesOnlyWithoutPrefault follows print mode's use: the first run
// writes a learning record, the second prefaults it and saves it as ready,
// the third prefaults from it and leaves it as it was (a run that
// prefaulted would record its mapped-back pages again).
func TestRunSavesOnlyWithoutPrefault(t *testing.T) {
	spans := armedOrSkip(t)
	path := filepath.Join(t.TempDir(), "pages")
	for i := range 2 {
		run := Start(path)
		if (run.prefaulted == 0) != (i == 0) {
			t.Fatalf("run %d prefaulted %d pages", i+1, run.prefaulted)
		}
		if err := run.End(); err != nil {
			t.Fatalf("run %d: %v", i+1, err)
		}
	}
	if _, kind, ok := load(path, spans); !ok || kind != ready {
		t.Fatalf("after two runs: %q, %v; want ready", kind, ok)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	run := Start(path)
	if run.prefaulted == 0 {
		t.Fatal("the third run prefaulted nothing from a ready record")
	}
	if err := os.WriteFile(path, append(before, "garbage\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := run.End(); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before)+"garbage\n" {
		t.Error("a run that prefaulted saved a record")
	}
}

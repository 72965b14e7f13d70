//go:build linux

package exewarm

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/olly-agent/olly/internal/atomicfile"
	"github.com/olly-agent/olly/internal/exetrim"
)

const (
	madvPopulateRead = 22 // MADV_POPULATE_READ, Linux 5.14
	header           = "olly-exewarm 1"
	// A record is first written by a run that had none ("learning": the
	// pages it had mapped at its end, after its start-up trim) and is
	// prefaulted from the next run on. The run that prefaults a learning
	// record saves it again as "ready" (the pages of the record it still
	// has mapped: all of them, since it mapped them back), which later
	// runs prefault and leave as it is. (Until session 29 a learning record
	// was not prefaulted and the second run kept only the pages both runs
	// had mapped; but then the second run of a state folder — the peer
	// bench's measured run — faulted the loop's pages in one at a time:
	// 53 faults in its first iteration and 595 in a 20-step loop against 0
	// and 176 prefaulted, docs/performance.md "First tool steps". What the
	// first run alone touched after its start-up trim is mapped by later
	// runs for up to maxAge.)
	learning = learningKind
	ready    = "ready"
	// maxPages bounds what a record may map back (64 MiB of 4 KiB pages):
	// more is not a loop's working set.
	maxPages = 16384
	// maxAge is how long a record is used before a run learns it again.
	maxAge = 24 * time.Hour
)

// run is n pages from page start of span i.
type run struct{ span, start, n int }

// Save records which pages of the executable's armed spans are mapped now,
// into path: the first time as a learning record, the next time (a
// learning record of this executable is there) the pages both it and now
// have mapped, as a ready record. It does nothing when exetrim is not
// armed.
func Save(path string) error {
	spans := exetrim.Spans()
	if len(spans) == 0 {
		return nil
	}
	id, err := identity()
	if err != nil {
		return err
	}
	runs, err := mapped(spans)
	if err != nil {
		return err
	}
	state := learning
	if prev, kind, ok := load(path, spans); ok && kind == learning {
		runs, state = intersect(runs, prev), ready
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n%s\n", header, state, id)
	for _, r := range runs {
		fmt.Fprintf(&b, "%d %d %d\n", r.span, r.start, r.n)
	}
	return atomicfile.Write(path, []byte(b.String()), 0o600)
}

// intersect returns the pages in both a and b (each sorted by span and
// start, without overlaps, as mapped and parseRuns return them).
func intersect(a, b []run) []run {
	var out []run
	for i, j := 0, 0; i < len(a) && j < len(b); {
		x, y := a[i], b[j]
		if x.span != y.span {
			if x.span < y.span {
				i++
			} else {
				j++
			}
			continue
		}
		lo, hi := max(x.start, y.start), min(x.start+x.n, y.start+y.n)
		if hi > lo {
			out = append(out, run{x.span, lo, hi - lo})
		}
		if x.start+x.n < y.start+y.n {
			i++
		} else {
			j++
		}
	}
	return out
}

// Prefault maps back the pages path records, if it was saved by this
// executable less than maxAge ago. It returns how many pages it asked for:
// 0 means there is no record to use, and the caller should Save one at
// the end of the run. (A run that prefaulted a ready record does not save:
// pages mapped back and never used would be recorded again, and the
// record would only grow.)
func Prefault(path string) int {
	n, _ := prefault(path)
	return n
}

// prefault is Prefault, also returning the record's kind.
func prefault(path string) (int, string) {
	spans := exetrim.Spans()
	if len(spans) == 0 {
		return 0, ""
	}
	runs, kind, ok := load(path, spans)
	if !ok {
		return 0, ""
	}
	page := uintptr(os.Getpagesize())
	total := 0
	for _, r := range runs {
		lo := spans[r.span][0] + uintptr(r.start)*page
		_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, lo, uintptr(r.n)*page, madvPopulateRead)
		total += r.n
	}
	return total, kind
}

// identity names the running executable's file: a record of another one
// (a rebuild, another install) is not used.
func identity() (string, error) {
	fi, err := os.Stat("/proc/self/exe")
	if err != nil {
		return "", err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", fmt.Errorf("exewarm: no inode for the executable")
	}
	return fmt.Sprintf("%d %d %d %d", st.Dev, st.Ino, fi.Size(), fi.ModTime().UnixNano()), nil
}

// mapped reads /proc/self/pagemap for spans and returns the runs of pages
// present in this process's page tables.
func mapped(spans [][2]uintptr) ([]run, error) {
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	page := uintptr(os.Getpagesize())
	var runs []run
	for i, s := range spans {
		n := int((s[1] - s[0]) / page)
		buf := make([]byte, 8*n)
		if _, err := f.ReadAt(buf, int64(s[0]/page)*8); err != nil {
			return nil, fmt.Errorf("exewarm: read pagemap: %w", err)
		}
		for p := 0; p < n; {
			if binary.LittleEndian.Uint64(buf[8*p:])>>63 == 0 {
				p++
				continue
			}
			q := p
			for q < n && binary.LittleEndian.Uint64(buf[8*q:])>>63 != 0 {
				q++
			}
			runs = append(runs, run{i, p, q - p})
			p = q
		}
	}
	return runs, nil
}

// load reads a record and checks it against this executable and spans;
// kind is learning or ready.
func load(path string, spans [][2]uintptr) (runs []run, kind string, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || time.Since(fi.ModTime()) > maxAge {
		return nil, "", false
	}
	id, err := identity()
	if err != nil {
		return nil, "", false
	}
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return nil, "", false
	}
	kind, found := strings.CutPrefix(sc.Text(), header+" ")
	if !found || (kind != learning && kind != ready) || !sc.Scan() || sc.Text() != id {
		return nil, "", false
	}
	runs, ok = parseRuns(sc, spans, uintptr(os.Getpagesize()))
	return runs, kind, ok
}

// parseRuns reads "span start count" lines; every run must lie inside its
// span, and all of them together within maxPages.
func parseRuns(sc *bufio.Scanner, spans [][2]uintptr, page uintptr) ([]run, bool) {
	var runs []run
	total := 0
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 {
			return nil, false
		}
		var v [3]int
		for k := range f {
			n, err := strconv.Atoi(f[k])
			if err != nil || n < 0 {
				return nil, false
			}
			v[k] = n
		}
		r := run{v[0], v[1], v[2]}
		if r.span >= len(spans) || r.n == 0 || r.start > int((spans[r.span][1]-spans[r.span][0])/page)-r.n {
			return nil, false
		}
		if total += r.n; total > maxPages {
			return nil, false
		}
		runs = append(runs, r)
	}
	return runs, sc.Err() == nil
}

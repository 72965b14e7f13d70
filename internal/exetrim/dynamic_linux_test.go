//go:build linux && !android && (amd64 || arm64)

package exetrim

import (
	"bufio"
	"encoding/binary"
	"os"
	"strconv"
	"strings"
	"testing"
)

func dyn(entries ...uint64) []byte {
	b := make([]byte, 8*len(entries))
	for i, e := range entries {
		binary.LittleEndian.PutUint64(b[8*i:], e)
	}
	return b
}

func TestDynamicTextrel(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
		want bool
	}{
		{"none", dyn(1, 5, 0, 0), false},
		{"DT_TEXTREL", dyn(1, 5, dtTextrel, 0, 0, 0), true},
		{"DF_TEXTREL", dyn(dtFlags, 8|dfTextrel, 0, 0), true},
		{"DT_FLAGS without DF_TEXTREL", dyn(dtFlags, 8, 0, 0), false},
		{"after DT_NULL", dyn(0, 0, dtTextrel, 0), false},
		{"truncated", dyn(dtTextrel, 0)[:12], false},
		{"empty", nil, false},
	} {
		if got := dynamicTextrel(tc.b); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestSpansHaveNoAnonymousPages: every mapping a span covers is plain
// file pages (/proc/self/smaps "Anonymous: 0 kB"). A page the loader or a
// debugger patched is a private anonymous copy, which MADV_DONTNEED would
// discard for the unpatched bytes of the file.
func TestSpansHaveNoAnonymousPages(t *testing.T) {
	armedOrSkip(t)
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	var lo, hi uint64
	checked := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fs := strings.Fields(line)
		if len(fs) > 0 && strings.Contains(fs[0], "-") && !strings.HasSuffix(fs[0], ":") {
			a, b, _ := strings.Cut(fs[0], "-")
			lo, _ = strconv.ParseUint(a, 16, 64)
			hi, _ = strconv.ParseUint(b, 16, 64)
			continue
		}
		if len(fs) < 2 || fs[0] != "Anonymous:" {
			continue
		}
		for _, s := range state.spans {
			if uint64(s.lo) < hi && lo < uint64(s.hi) {
				checked++
				if fs[1] != "0" {
					t.Errorf("mapping %#x-%#x under span %#x-%#x has %s kB anonymous pages", lo, hi, s.lo, s.hi, fs[1])
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no mapping in smaps covers a span")
	}
}

// TestTracerInFailsClosed: a status without a TracerPid line (unreadable,
// cut short) counts as traced, so Trim drops nothing it cannot vouch for.
func TestTracerInFailsClosed(t *testing.T) {
	for status, want := range map[string]bool{
		"Name:\tolly\nTracerPid:\t0\nUid:\t0\n": false,
		"Name:\tolly\nTracerPid:\t4242\n":       true,
		"Name:\tolly\n":                         true,
		"":                                      true,
	} {
		if got := tracerIn([]byte(status)); got != want {
			t.Errorf("%q: traced %v, want %v", status, got, want)
		}
	}
}

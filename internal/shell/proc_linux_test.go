//go:build linux

package shell

import (
	"fmt"
	"os"
	"testing"
)

func TestParseStat(t *testing.T) {
	cases := []struct {
		name string
		line string
		ok   bool
		want procInfo
	}{
		{"plain", "42 (sleep) S 7 42 42 0 -1 4194304 1 2 3 4 5 6 7 8 20 0 1 0 12345 0 0", true, procInfo{42, 7, 42, 12345}},
		{"name with spaces and parens", "43 (a (b) c) R 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99 0", true, procInfo{43, 1, 9, 99}},
		{"zombie", "44 (x) Z 1 44 44 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0", false, procInfo{}},
		{"truncated", "45 (x) S 1 2", false, procInfo{}},
		{"no parens", "46 x S 1 2 3", false, procInfo{}},
		{"bad number", "47 (x) S one 2 3 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0", false, procInfo{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var pid int
			_, _ = fmt.Sscan(tc.line, &pid)
			got, ok := parseStat(pid, []byte(tc.line))
			if ok != tc.ok || got != tc.want {
				t.Errorf("parseStat = %+v %v, want %+v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestListProcsSeesSelf checks the listing against this process.
func TestListProcsSeesSelf(t *testing.T) {
	procs, err := listProcs()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		if p.pid == os.Getpid() {
			if p.ppid != os.Getppid() || p.start == 0 || p.start != procStart(p.pid) {
				t.Errorf("self = %+v (parent %d)", p, os.Getppid())
			}
			return
		}
	}
	t.Error("this process is not listed")
}

func TestEnvironHas(t *testing.T) {
	var buf []byte
	if !environHas(os.Getpid(), []byte("PATH="), &buf) {
		t.Error("PATH= not found in this process's environment")
	}
	if environHas(os.Getpid(), []byte("ATH="), &buf) {
		t.Error("matched in the middle of an entry")
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("42 (sleep) S 7 42 42 0 -1 4194304 1 2 3 4 5 6 7 8 20 0 1 0 12345 0 0"))
	f.Add([]byte("1 ()) ) Z"))
	f.Add([]byte(")"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, ok := parseStat(1, b)
		if !ok && p != (procInfo{}) {
			t.Fatalf("not ok but %+v", p)
		}
	})
}

package main

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
)

func TestStatFields(t *testing.T) {
	// The command name may hold spaces and parentheses.
	f := statFields("1234 (a (b) c) S 77 1234 1234 0 -1 4194560 10 0 0 0 5 6 7 8 20 0 1")
	if len(f) < 15 || f[0] != "S" || f[1] != "77" || f[13] != "7" || f[14] != "8" {
		t.Fatalf("statFields = %q", f)
	}
	if statFields("garbage") != nil {
		t.Fatal("statFields of a line without a name is not nil")
	}
}

func TestAtInterpolates(t *testing.T) {
	t0 := time.Unix(100, 0)
	s := []sample{
		{at: t0, cpu: 10 * time.Millisecond},
		{at: t0.Add(10 * time.Millisecond), cpu: 20 * time.Millisecond},
		{at: t0.Add(20 * time.Millisecond), cpu: 40 * time.Millisecond},
	}
	cpu := func(x sample) time.Duration { return x.cpu }
	for _, c := range []struct {
		at   time.Duration
		want time.Duration
		ok   bool
	}{
		{0, 10 * time.Millisecond, true},
		{5 * time.Millisecond, 15 * time.Millisecond, true},
		{15 * time.Millisecond, 30 * time.Millisecond, true},
		{20 * time.Millisecond, 40 * time.Millisecond, true},
		{-time.Millisecond, 0, false},
		{21 * time.Millisecond, 0, false},
	} {
		got, ok := at(s, t0.Add(c.at), cpu)
		if ok != c.ok || got != c.want {
			t.Errorf("at(+%v) = %v, %v; want %v, %v", c.at, got, ok, c.want, c.ok)
		}
	}
}

// TestTreeCountsAChild runs this test binary as a child that spends at
// least 60 ms of CPU in a grandchild, and checks that the tree's samples
// see it: the figure comes from the scheduler, whatever the load.
func TestTreeCountsAChild(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	if os.Getenv("TREECPU_BURN") != "" {
		t.Skip("helper mode")
	}
	cmd := exec.Command(os.Args[0], "-test.run=TestBurnHelper")
	cmd.Env = append(os.Environ(), "TREECPU_BURN=parent")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tr := newTree(cmd.Process.Pid)
	var last sample
	for waiting := true; waiting; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			waiting = false
		case <-time.After(2 * time.Millisecond):
			tr.scan()
			if s := tr.sample(); s.cpu > last.cpu {
				last = s
			}
		}
	}
	if last.cpu < 50*time.Millisecond {
		t.Fatalf("the tree's CPU seen while it ran: %v; want at least the grandchild's 60 ms (less the last 2 ms poll)", last.cpu)
	}
}

// TestBurnHelper is the child (which starts a grandchild) and the
// grandchild (which burns CPU) of TestTreeCountsAChild.
func TestBurnHelper(t *testing.T) {
	switch os.Getenv("TREECPU_BURN") {
	case "parent":
		cmd := exec.Command(os.Args[0], "-test.run=TestBurnHelper")
		cmd.Env = append(os.Environ(), "TREECPU_BURN=child")
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
	case "child":
		var ru syscall.Rusage
		x := 0
		for {
			for i := 0; i < 1_000_000; i++ {
				x += i
			}
			if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
				t.Fatal(err)
			}
			if time.Duration(ru.Utime.Nano()+ru.Stime.Nano()) >= 60*time.Millisecond {
				break
			}
		}
		_ = x
		// Stay a moment so that the parent's poll sees the final figure.
		time.Sleep(30 * time.Millisecond)
	default:
		t.Skip("helper of TestTreeCountsAChild")
	}
}

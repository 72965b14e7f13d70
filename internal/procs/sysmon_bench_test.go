//go:build linux

package procs

import (
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkSysmonStep measures what the runtime's monitor thread costs a
// one-P process shaped like olly's loop, with sysmon's normal policy and
// with SCHED_BATCH (batchSysmon). One op is a "step": a busy stretch of
// about 0.3 ms of Go code and short system calls (getppid), then a wait
// for another process (a byte echoed after 0.5 ms through two pipes), during which
// the P is idle and sysmon goes to its deep sleep; the next system call
// wakes it and it polls every 20 µs again. The process's CPU per op
// (getrusage: every thread, sysmon included, not the peer's) and its voluntary
// and involuntary context switches per op are reported.
//
//	go test -run '^$' -bench SysmonStep -benchtime 2000x -count 3 ./internal/procs/
func BenchmarkSysmonStep(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	tid := batchSysmon(func(string) string { return "" })
	if tid == 0 {
		b.Skip("sysmon's thread not found")
	}
	setPolicy := func(p uint32) {
		attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: p}
		if err := unix.SchedSetAttr(tid, &attr, 0); err != nil {
			b.Fatal(err)
		}
	}
	defer setPolicy(unix.SCHED_NORMAL)
	for _, c := range []struct {
		name   string
		policy uint32
	}{ // alternated, so that an order effect would show
		{"sysmon=normal", unix.SCHED_NORMAL}, {"sysmon=batch", unix.SCHED_BATCH},
		{"sysmon=normal", unix.SCHED_NORMAL}, {"sysmon=batch", unix.SCHED_BATCH},
	} {
		b.Run(c.name, func(b *testing.B) {
			setPolicy(c.policy)
			echoSteps(b)
		})
	}
}

// peerEnv makes the test binary the benchmark's peer: it answers each byte
// read from stdin after 0.5 ms, as the model server or bash answers the
// loop after a while.
const peerEnv = "OLLY_PROCS_BENCH_PEER"

func TestMain(m *testing.M) {
	if os.Getenv(peerEnv) == "1" {
		buf := make([]byte, 1)
		for {
			if _, err := os.Stdin.Read(buf); err != nil {
				os.Exit(0)
			}
			time.Sleep(500 * time.Microsecond)
			if _, err := os.Stdout.Write(buf); err != nil {
				os.Exit(0)
			}
		}
	}
	os.Exit(m.Run())
}

func echoSteps(b *testing.B) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), peerEnv+"=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = in.Close(); _ = cmd.Wait() }()
	one := []byte{'x'}
	buf := make([]byte, 1)
	step := func() {
		t0 := time.Now()
		for time.Since(t0) < 300*time.Microsecond {
			syscall.Getppid()
		}
		if _, err := in.Write(one); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(out, buf); err != nil {
			b.Fatal(err)
		}
	}
	for range 50 { // the peer started, pages touched
		step()
	}
	before := rusageSelf()
	for b.Loop() {
		step()
	}
	after := rusageSelf()
	ops := float64(b.N)
	b.ReportMetric(float64(after.cpu-before.cpu)/ops, "cpu-ns/op")
	b.ReportMetric(float64(after.nvcsw-before.nvcsw)/ops, "vcsw/op")
	b.ReportMetric(float64(after.nivcsw-before.nivcsw)/ops, "ivcsw/op")
}

type selfUsage struct{ cpu, nvcsw, nivcsw int64 }

func rusageSelf() selfUsage {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return selfUsage{cpu: ru.Utime.Nano() + ru.Stime.Nano(), nvcsw: ru.Nvcsw, nivcsw: ru.Nivcsw}
}

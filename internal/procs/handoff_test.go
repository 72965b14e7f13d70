//go:build linux

package procs

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// BenchmarkHandoff measures what one goroutine hand-off costs the process
// in CPU (user+system, getrusage, so spinning threads count) and in
// context switches, with one P and with Go's default: the loop's shape, a
// goroutine that wakes another over a channel and waits for its answer,
// with a short system call on each side (as the transport's write and read
// loops make). The figures are what internal/procs trades on; see
// docs/performance.md "One P while the loop runs".
//
//	go test -run '^$' -bench Handoff -benchtime 20000x ./internal/procs/
func BenchmarkHandoff(b *testing.B) {
	def := runtime.GOMAXPROCS(0)
	for _, n := range []int{1, def} {
		b.Run(map[bool]string{true: "procs=1", false: "procs=default"}[n == 1], func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n))
			req, resp := make(chan struct{}), make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				for range req {
					syscall.Getppid()
					resp <- struct{}{}
				}
			}()
			before, t0 := usage(), time.Now()
			for b.Loop() {
				syscall.Getppid()
				req <- struct{}{}
				<-resp
			}
			wall := time.Since(t0)
			after := usage()
			close(req)
			<-done
			ops := float64(b.N)
			b.ReportMetric(float64(after.cpu-before.cpu)/ops, "cpu-ns/op")
			b.ReportMetric(float64(after.nvcsw-before.nvcsw)/ops, "vcsw/op")
			b.ReportMetric(float64(wall.Nanoseconds())/ops, "wall-ns/op")
		})
	}
}

type rusage struct{ cpu, nvcsw int64 }

func usage() rusage {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return rusage{cpu: ru.Utime.Nano() + ru.Stime.Nano(), nvcsw: ru.Nvcsw}
}

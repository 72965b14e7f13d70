package tui

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time the calling OS thread has used (the caller
// locks its goroutine to the thread): render work, without the time other
// processes on a shared machine took the core.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

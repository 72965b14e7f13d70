package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// Profiling a real run (docs/performance.md, "Profiling a run"):
// OLLY_CPUPROFILE=FILE writes a CPU profile of the whole process,
// OLLY_MEMPROFILE=FILE a heap profile taken when the command ends (after a
// GC, so it shows what stays live; -sample_index=alloc_space shows what was
// allocated), OLLY_TRACE=FILE an execution trace (runtime/trace: every
// goroutine, syscall, GC and the agent loop's regions, for `go tool trace`).
// All are removed from olly's environment as soon as they are read, so no
// child (commands, hooks, language servers, MCP servers, the sandbox helper)
// inherits them or overwrites the files.
const (
	cpuProfileEnv = "OLLY_CPUPROFILE"
	memProfileEnv = "OLLY_MEMPROFILE"
	traceEnv      = "OLLY_TRACE"
)

// startProfiles starts what the environment asks for and returns the
// function that finishes it; it never fails the command: a profile that
// cannot be written is reported on stderr.
func startProfiles() (stop func()) {
	cpuPath, memPath, tracePath := os.Getenv(cpuProfileEnv), os.Getenv(memProfileEnv), os.Getenv(traceEnv)
	_ = os.Unsetenv(cpuProfileEnv)
	_ = os.Unsetenv(memProfileEnv)
	_ = os.Unsetenv(traceEnv)
	stopCPU := startRecording(cpuProfileEnv, cpuPath, pprof.StartCPUProfile, pprof.StopCPUProfile)
	stopTrace := startRecording(traceEnv, tracePath, trace.Start, trace.Stop)
	return func() {
		stopTrace()
		stopCPU()
		if memPath != "" {
			if err := writeHeapProfile(memPath); err != nil {
				fmt.Fprintf(os.Stderr, "olly: %s: %v\n", memProfileEnv, err)
			}
		}
	}
}

// startRecording creates path and starts a recorder writing to it (the CPU
// profile or the execution trace); the returned function stops it and
// closes the file. An empty path records nothing.
func startRecording(env, path string, start func(io.Writer) error, stop func()) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		if err = start(f); err != nil {
			_ = f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "olly: %s: %v\n", env, err)
		return func() {}
	}
	return func() {
		stop()
		if err := f.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "olly: %s: %v\n", env, err)
		}
	}
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

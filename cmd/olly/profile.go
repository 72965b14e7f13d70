package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// Profiling a real run (docs/performance.md, "Profiling a run"):
// OLLY_CPUPROFILE=FILE writes a CPU profile of the whole process,
// OLLY_MEMPROFILE=FILE a heap profile taken when the command ends (after a
// GC, so it shows what stays live; -sample_index=alloc_space shows what was
// allocated). Both are removed from olly's environment as soon as they are
// read, so no child (commands, hooks, language servers, MCP servers, the
// sandbox helper) inherits them or overwrites the files.
const (
	cpuProfileEnv = "OLLY_CPUPROFILE"
	memProfileEnv = "OLLY_MEMPROFILE"
)

// startProfiles starts what the environment asks for and returns the
// function that finishes it; it never fails the command: a profile that
// cannot be written is reported on stderr.
func startProfiles() (stop func()) {
	cpuPath, memPath := os.Getenv(cpuProfileEnv), os.Getenv(memProfileEnv)
	_ = os.Unsetenv(cpuProfileEnv)
	_ = os.Unsetenv(memProfileEnv)
	var cpuFile *os.File
	if cpuPath != "" {
		f, err := os.Create(cpuPath)
		if err == nil {
			err = pprof.StartCPUProfile(f)
			if err != nil {
				_ = f.Close()
			} else {
				cpuFile = f
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "olly: %s: %v\n", cpuProfileEnv, err)
		}
	}
	return func() {
		if cpuFile != nil {
			pprof.StopCPUProfile()
			if err := cpuFile.Close(); err != nil {
				fmt.Fprintf(os.Stderr, "olly: %s: %v\n", cpuProfileEnv, err)
			}
		}
		if memPath != "" {
			if err := writeHeapProfile(memPath); err != nil {
				fmt.Fprintf(os.Stderr, "olly: %s: %v\n", memProfileEnv, err)
			}
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

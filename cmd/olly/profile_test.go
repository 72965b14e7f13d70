package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// gzipMagic starts every pprof file (gzip-compressed protobuf).
var gzipMagic = []byte{0x1f, 0x8b}

func TestProfilesAreWrittenAndNotInherited(t *testing.T) {
	dir := t.TempDir()
	cpu, mem, tr := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof"), filepath.Join(dir, "trace.out")
	t.Setenv(cpuProfileEnv, cpu)
	t.Setenv(memProfileEnv, mem)
	t.Setenv(traceEnv, tr)
	stop := startProfiles()
	for _, name := range []string{cpuProfileEnv, memProfileEnv, traceEnv} {
		if v, ok := os.LookupEnv(name); ok {
			t.Errorf("%s=%q still in the environment children inherit", name, v)
		}
	}
	stop()
	for _, p := range []string{cpu, mem} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, gzipMagic) {
			t.Errorf("%s is not a pprof file (%d bytes)", p, len(b))
		}
	}
	b, err := os.ReadFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, traceMagic) {
		t.Errorf("%s is not an execution trace (%d bytes, starts %q)", tr, len(b), b[:min(len(b), 16)])
	}
}

// traceMagic starts every execution trace runtime/trace writes.
var traceMagic = []byte("go 1.")

func TestProfileToAnUnwritablePathDoesNotStopTheCommand(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "missing", "cpu.pprof")
	t.Setenv(cpuProfileEnv, bad)
	t.Setenv(memProfileEnv, filepath.Join(t.TempDir(), "missing", "mem.pprof"))
	t.Setenv(traceEnv, filepath.Join(t.TempDir(), "missing", "trace.out"))
	stop := startProfiles() // reports on stderr, must not panic
	stop()
	if _, err := os.Stat(bad); err == nil {
		t.Fatalf("%s was created", bad)
	}
}

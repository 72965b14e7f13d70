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
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	t.Setenv(cpuProfileEnv, cpu)
	t.Setenv(memProfileEnv, mem)
	stop := startProfiles()
	for _, name := range []string{cpuProfileEnv, memProfileEnv} {
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
}

func TestProfileToAnUnwritablePathDoesNotStopTheCommand(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "missing", "cpu.pprof")
	t.Setenv(cpuProfileEnv, bad)
	t.Setenv(memProfileEnv, filepath.Join(t.TempDir(), "missing", "mem.pprof"))
	stop := startProfiles() // reports on stderr, must not panic
	stop()
	if _, err := os.Stat(bad); err == nil {
		t.Fatalf("%s was created", bad)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeStats(t *testing.T, dir, agent, runName, body string) {
	t.Helper()
	d := filepath.Join(dir, agent, runName)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, ".stats.json"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestIterations(t *testing.T) {
	// steps at 0, 1, 3 ms; the final answer at 7 ms: iterations 1, 2, 4 ms.
	got, err := iterations([]byte(`{"step_ns":[1000000000,1001000000,1003000000],"final_ns":1007000000}`))
	if err != nil || len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 4 {
		t.Fatalf("iterations = %v, %v", got, err)
	}
	for _, bad := range []string{`{}`, `{"step_ns":[5],"final_ns":0}`, `{"step_ns":[0,7],"final_ns":9}`, `{"step_ns":[9],"final_ns":5}`, `not json`} {
		if it, err := iterations([]byte(bad)); err == nil {
			t.Errorf("%s: %v and no error", bad, it)
		}
	}
}

func TestReport(t *testing.T) {
	dir := t.TempDir()
	// run 1: iterations 1, 1, 1, 3 ms (median 1, the 4th slowest: over 2×);
	// run 2: 5, 2, 2 ms (median 2, the 1st slowest: 5 > 4, over 2×);
	// run 3: 2, 2, 3 ms (median 2: 3 < 4, not over). A run without steps,
	// a warm-up run and another agent's run are not counted.
	writeStats(t, dir, "olly", "run-1", `{"step_ns":[1,1000001,2000001,3000001],"final_ns":6000001}`)
	writeStats(t, dir, "olly", "run-2", `{"step_ns":[10000000,15000000,17000000],"final_ns":19000000}`)
	writeStats(t, dir, "olly", "run-3", `{"step_ns":[10000000,12000000,14000000],"final_ns":17000000}`)
	writeStats(t, dir, "olly", "run-4", `{"step_ns":[],"final_ns":0}`)
	writeStats(t, dir, "olly", "warmup-1", `{"step_ns":[1,900000001],"final_ns":900000002}`)
	writeStats(t, dir, "other", "run-1", `{"step_ns":[1,900000001],"final_ns":900000002}`)
	runs, err := readRuns(dir, "olly")
	if err != nil || len(runs) != 3 {
		t.Fatalf("readRuns: %d runs, %v", len(runs), err)
	}
	var b strings.Builder
	report(&b, "x", runs)
	want := "x: 3 runs | iteration median ms 2.00 (1.00–2.00) | slowest − median ms 2.00 (1.00–3.00) | slowest ÷ median 2.50 (1.50–3.00) | runs with an iteration over 2× their median: 2 of 3 | slowest is iteration 1 in 1\n"
	if b.String() != want {
		t.Errorf("report:\n%s\nwant:\n%s", b.String(), want)
	}
}

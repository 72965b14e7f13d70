package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestGitProbeCache: the probe's answer is written to the cache file and
// read back by the next sandbox with the same helper on the same boot;
// a record for another key (another binary, boot, kernel…) or a broken
// file is ignored and the probe runs for real.
func TestGitProbeCache(t *testing.T) {
	activeSandbox(t)
	file := filepath.Join(t.TempDir(), "state", "sandbox-git-probe.json")
	b := New("")
	b.CacheGitProbe(file)
	real := b.Status()
	var rec probeRecord
	js, err := os.ReadFile(file)
	if err != nil || json.Unmarshal(js, &rec) != nil {
		t.Fatalf("no record written: %v %s", err, js)
	}
	if rec.Git != real.Git || rec.Key == "" || rec.Key != b.probeKey() {
		t.Fatalf("record %+v, status %+v", rec, real)
	}

	write := func(r probeRecord) {
		t.Helper()
		js, _ := json.Marshal(r)
		if err := os.WriteFile(file, js, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	status := func(exe string) Status {
		c := New(exe)
		c.CacheGitProbe(file)
		return c.Status()
	}
	// The same key: the remembered answer is used (a forged one here,
	// to tell it from a probe).
	write(probeRecord{Key: rec.Key, Git: GitSplit, Reason: "remembered"})
	if st := status(""); st.Git != GitSplit || st.GitReason != "remembered" {
		t.Fatalf("cached answer not used: %+v", st)
	}
	// Another key, an unknown answer or a broken file: probe for real.
	for name, r := range map[string]probeRecord{
		"other key":      {Key: rec.Key + " other", Git: GitSplit, Reason: "remembered"},
		"unknown answer": {Key: rec.Key, Git: "none", Reason: "remembered"},
	} {
		write(r)
		if st := status(""); st.Git != real.Git || st.GitReason == "remembered" {
			t.Errorf("%s: %+v, want a real probe (%+v)", name, st, real)
		}
	}
	if err := os.WriteFile(file, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if st := status(""); st.Git != real.Git {
		t.Errorf("broken file: %+v", st)
	}
	// Another helper binary has another key: a failing helper is probed,
	// not given olly's answer.
	write(probeRecord{Key: rec.Key, Git: GitMount})
	if st := status("/bin/false"); st.Git != GitSplit || st.GitReason == "" {
		t.Errorf("another binary used olly's answer: %+v", st)
	}
}

// BenchmarkGitProbeCached is what the first Status call costs when an
// earlier olly remembered the probe's answer.
func BenchmarkGitProbeCached(b *testing.B) {
	if !New("").Status().Active() {
		b.Skip("no sandbox")
	}
	file := filepath.Join(b.TempDir(), "probe.json")
	warm := New("")
	warm.CacheGitProbe(file)
	want := warm.Status().Git
	cpu0 := cpuTime()
	for b.Loop() {
		s := New("")
		s.CacheGitProbe(file)
		if s.Status().Git != want {
			b.Fatal("not the cached answer")
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
}

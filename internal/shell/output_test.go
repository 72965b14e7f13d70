package shell

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

// heapWatcher samples the live heap while a test runs and reports the
// largest growth over the baseline.
type heapWatcher struct {
	base uint64
	peak atomic.Uint64
	stop chan struct{}
	done chan struct{}
}

func watchHeap() *heapWatcher {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h := &heapWatcher{base: ms.HeapAlloc, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > h.peak.Load() {
				h.peak.Store(ms.HeapAlloc)
			}
			select {
			case <-h.stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return h
}

func (h *heapWatcher) growth() uint64 {
	close(h.stop)
	<-h.done
	if p := h.peak.Load(); p > h.base {
		return p - h.base
	}
	return 0
}

// TestHugeOutputIsCapped: a command printing a gigabyte is stopped at the
// output cap, reported, and memory stays bounded throughout (HeapAlloc is
// sampled every 5 ms; GC runs freely, so the bound is on live memory).
func TestHugeOutputIsCapped(t *testing.T) {
	cases := []struct {
		name    string
		command string
	}{
		{"yes", "yes"},
		{"a gigabyte without newlines", "head -c 1G /dev/zero | tr '\\0' x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// A 16 MiB cap keeps the test quick under -race; memory must not
			// depend on the cap anyway.
			const limit = 16 << 20
			m, _ := newTestManager(t, func(o *ManagerOptions) { o.MaxOutputBytes = limit })
			sh := m.Session("s")
			var live atomic.Int64
			h := watchHeap()
			res := mustRun(t, sh, tc.command, RunOptions{
				Timeout:  60 * time.Second,
				OnOutput: func(b []byte) { live.Add(int64(len(b))) },
			})
			growth := h.growth()
			t.Logf("heap growth %d MiB, duration %s, live %d bytes, killed %d", growth>>20, res.Duration, live.Load(), res.Killed)
			if growth > 64<<20 {
				t.Errorf("heap grew by %d MiB, want < 64 MiB", growth>>20)
			}
			if !res.OutputCapped || res.TimedOut {
				t.Fatalf("OutputCapped=%v TimedOut=%v: %s", res.OutputCapped, res.TimedOut, res.Text())
			}
			if res.Killed < 1 || !hasNote(res, "output exceeded 16 MiB") {
				t.Errorf("killed %d, notes %q", res.Killed, res.Notes)
			}
			if res.TotalBytes <= limit {
				t.Errorf("TotalBytes = %d, want more than the cap", res.TotalBytes)
			}
			fi, err := os.Stat(res.Artifact)
			if err != nil {
				t.Fatal(err)
			}
			// The sanitized artifact holds exactly the bytes up to the cap.
			if fi.Size() != limit {
				t.Errorf("artifact is %d bytes, want the cap", fi.Size())
			}
			if len(res.Output) > 200<<10 {
				t.Errorf("model output is %d bytes", len(res.Output))
			}
		})
	}
}

func TestOutputForModel(t *testing.T) {
	cases := []struct {
		name, command, want string
	}{
		{"stdout and stderr interleave in order", "echo out1; echo err1 >&2; echo out2; echo err2 >&2", "out1\nerr1\nout2\nerr2"},
		{"colours stripped", `printf '\033[1;31mred\033[0m plain\n'`, "red plain"},
		{"progress collapsed", `printf 'get 10%%\rget 50%%\rget 100%%\n'`, "get 100%"},
		{"invalid UTF-8 repaired", `printf 'a\xffb\n'`, "a\uFFFDb"},
		{"VS Code shell integration marks", `printf '\033]633;A\007prompt\033]633;B\007\n'`, "prompt"},
		{"no trailing newline", `printf 'x'`, "x"},
		{"empty", "true", ""},
	}
	m, _ := newTestManager(t, nil)
	sh := m.Session("s")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := mustRun(t, sh, tc.command, RunOptions{})
			if res.Output != tc.want {
				t.Errorf("Output = %q, want %q", res.Output, tc.want)
			}
			if res.Artifact != "" {
				t.Errorf("small output has an artifact: %s", res.Artifact)
			}
		})
	}
}

// TestLongOutputArtifact: the model sees 15 head and 85 tail lines and the
// marker; the artifact has every line and pages correctly.
func TestLongOutputArtifact(t *testing.T) {
	m, _ := newTestManager(t, nil)
	res := mustRun(t, m.Session("s"), "seq 1 1000", RunOptions{})
	lines := strings.Split(res.Output, "\n")
	if len(lines) != 15+1+85 {
		t.Fatalf("model output has %d lines", len(lines))
	}
	if lines[0] != "1" || lines[14] != "15" || lines[16] != "916" || lines[100] != "1000" {
		t.Errorf("head/tail wrong: %q … %q", lines[:2], lines[99:])
	}
	wantMarker := fmt.Sprintf("[… 900 lines truncated (lines 16–915 of 1000); full output: %s — read it with read_file offsets]", res.Artifact)
	if lines[15] != wantMarker {
		t.Errorf("marker = %q\nwant     %q", lines[15], wantMarker)
	}
	if res.TotalLines != 1000 {
		t.Errorf("TotalLines = %d", res.TotalLines)
	}
	page, total, err := ReadArtifactLines(res.Artifact, 15, 20, 0)
	if err != nil {
		t.Fatal(err)
	}
	if total != 1000 || strings.Join(page, ",") != "16,17,18,19,20" {
		t.Errorf("page = %q, total %d", page, total)
	}
}

// TestLongLineIsCut: one enormous line is cut for the model and kept whole
// in the artifact.
func TestLongLineIsCut(t *testing.T) {
	m, _ := newTestManager(t, nil)
	res := mustRun(t, m.Session("s"), "head -c 100000 /dev/zero | tr '\\0' a; echo; echo end", RunOptions{})
	lines := strings.Split(res.Output, "\n")
	if !strings.HasPrefix(lines[0], strings.Repeat("a", 2000)+" [… 98000 more bytes]") || lines[1] != "end" {
		t.Errorf("output = %.100q…", res.Output)
	}
	if res.Artifact == "" || !strings.Contains(res.Output, res.Artifact) {
		t.Fatalf("no artifact mentioned: %q", res.Notes)
	}
	page, _, err := ReadArtifactLines(res.Artifact, 0, 1, 0)
	if err != nil || len(page) != 1 || len(page[0]) != 100000 {
		t.Errorf("artifact line 0 has %d bytes (err %v)", len(page[0]), err)
	}
}

// TestLiveOutput: OnOutput sees output while the command runs, coalesced,
// complete and in order.
func TestLiveOutput(t *testing.T) {
	m, _ := newTestManager(t, func(o *ManagerOptions) { o.LiveInterval = 20 * time.Millisecond })
	var (
		mu     sync.Mutex
		chunks [][]byte
		times  []time.Time
	)
	cmd := "echo first; sleep 0.5; printf 'é%.0s' $(seq 1 5000); echo; echo last"
	res := mustRun(t, m.Session("s"), cmd, RunOptions{OnOutput: func(b []byte) {
		mu.Lock()
		defer mu.Unlock()
		chunks = append(chunks, b)
		times = append(times, time.Now())
	}})
	end := time.Now()
	mu.Lock()
	defer mu.Unlock()
	if len(chunks) < 2 {
		t.Fatalf("got %d chunks", len(chunks))
	}
	// "first" is followed by half a second of sleep: it must have been
	// delivered well before Run returned, not collected at the end.
	if string(chunks[0]) != "first\n" || end.Sub(times[0]) < 400*time.Millisecond {
		t.Errorf("first chunk %q delivered %s before Run returned, want \"first\\n\" during the sleep", chunks[0], end.Sub(times[0]))
	}
	all := bytes.Join(chunks, nil)
	if want := "first\n" + strings.Repeat("é", 5000) + "\nlast\n"; string(all) != want {
		t.Errorf("live output differs from what was written (%d vs %d bytes)", len(all), len(want))
	}
	for i, c := range chunks {
		if !utf8.Valid(c) {
			t.Errorf("chunk %d splits a UTF-8 sequence", i)
		}
	}
	if times[len(times)-1].After(end) {
		t.Error("OnOutput called after Run returned")
	}
	if lines := strings.Split(res.Output, "\n"); len(lines) != 4 || lines[2] != "last" || !strings.Contains(lines[3], "1 long lines were cut") {
		t.Errorf("Output = %q", res.Output)
	}
}

func TestResultText(t *testing.T) {
	cases := []struct {
		name string
		res  Result
		want string
	}{
		{"plain", Result{Output: "hi", ExitCode: 0, Duration: 1234 * time.Microsecond}, "hi\n\n[exit code 0, 1ms]"},
		{"no output", Result{ExitCode: 1, Duration: 1500 * time.Millisecond}, "(no output)\n\n[exit code 1, 1.5s]"},
		{"signal and notes", Result{Signal: "SIGKILL", ExitCode: -1, Duration: 2 * time.Minute, Notes: []string{"a", "b"}}, "(no output)\n\n[shell ended by SIGKILL, 2m0s]\n[a]\n[b]"},
		{"rejected", Result{Rejected: "bad cwd"}, "[command not run: bad cwd]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.res.Text(); got != tc.want {
				t.Errorf("Text() = %q, want %q", got, tc.want)
			}
		})
	}
}

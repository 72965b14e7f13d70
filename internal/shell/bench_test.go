package shell

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
)

// BenchmarkRunTrue measures the per-command overhead: a fresh bash that
// restores and saves the session's state, output capture, and the checks
// for left-over processes.
func BenchmarkRunTrue(b *testing.B) {
	m, err := NewManager(ManagerOptions{Roots: []string{b.TempDir()}, ArtifactDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = m.CloseAll() }()
	sh := m.Session("bench")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := sh.Run(ctx, "true", RunOptions{})
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("%v %+v", err, res)
		}
	}
}

// BenchmarkBashBaseline is the floor BenchmarkRunTrue is measured
// against: starting "bash -c true" and waiting for it, nothing else.
func BenchmarkBashBaseline(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if err := exec.Command("bash", "--noprofile", "--norc", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// benchInputs are typical outputs: plain log lines, a coloured test run,
// a progress bar redrawn with carriage returns, and the worst case for
// per-line costs, yes(1).
func benchInputs() map[string][]byte {
	var plain, color, progress bytes.Buffer
	for i := 0; plain.Len() < 4<<20; i++ {
		plain.WriteString("2024-05-01T12:00:00Z INFO server: handled request path=/api/v1/items status=200 duration=1.2ms\n")
	}
	for color.Len() < 4<<20 {
		color.WriteString("\x1b[32m✓\x1b[0m \x1b[2mpkg/module\x1b[0m \x1b[1mTestSomething\x1b[0m (0.01s) — \x1b[33mwarning: é\x1b[0m\n")
	}
	for progress.Len() < 4<<20 {
		for p := 0; p <= 100; p += 5 {
			progress.WriteString("\r\x1b[2KDownloading [" + strings.Repeat("#", p/5) + strings.Repeat(" ", 20-p/5) + "] ")
		}
		progress.WriteString("done\n")
	}
	yes := bytes.Repeat([]byte("y\n"), 2<<20)
	return map[string][]byte{"plain": plain.Bytes(), "color": color.Bytes(), "progress": progress.Bytes(), "yes": yes}
}

// BenchmarkSanitize measures the escape stripper alone.
func BenchmarkSanitize(b *testing.B) {
	for name, in := range benchInputs() {
		b.Run(name, func(b *testing.B) {
			s := NewSanitizer(func([]byte) {})
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				_, _ = s.Write(in)
			}
		})
	}
}

// BenchmarkCapture measures the whole output path of a command: cap
// accounting, sanitizing, head/tail keeping and writing the artifact.
func BenchmarkCapture(b *testing.B) {
	for name, in := range benchInputs() {
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				c := newCapture(1<<40, DefaultLimits(), dir, "bench-*.log", nil)
				for off := 0; off < len(in); off += 32 << 10 {
					_, _ = c.Write(in[off:min(off+32<<10, len(in))])
				}
				if _, _, err := c.finish(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTruncate measures Truncate on 100,000 short lines.
func BenchmarkTruncate(b *testing.B) {
	lines := make([]string, 100000)
	for i := range lines {
		lines[i] = "line of ordinary output, about sixty bytes long, nothing more"
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = Truncate(lines, DefaultLimits(), "/tmp/artifact.log")
	}
}

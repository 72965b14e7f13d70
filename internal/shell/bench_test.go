package shell

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/sandbox"
)

// BenchmarkRunTrue measures the per-command overhead: handing the command
// to the session's bash, its output FIFO and capture, the state save after
// it, and the checks for left-over processes. cpu-ms/op is the CPU time of
// the whole process tree (this process, the session's bash and everything
// they started) per command; ns/op is wall time.
func BenchmarkRunTrue(b *testing.B) {
	benchRun(b, "true", nil)
}

// BenchmarkRunStep is one command like the peer benchmark's steps (an
// append to a file), with a state of typical size: a few exported
// variables, functions and aliases, as after sourcing a virtualenv.
func BenchmarkRunStep(b *testing.B) {
	benchRun(b, "echo step >> steps.txt", []string{
		"export VIRTUAL_ENV=/venv PATH=/venv/bin:$PATH; deactivate() { unset VIRTUAL_ENV; }; alias ll='ls -l'",
	})
}

// BenchmarkRunSandboxed is BenchmarkRunStep in the workspace-write
// sandbox (Landlock), where there is one.
func BenchmarkRunSandboxed(b *testing.B) {
	sb := sandbox.New("")
	if !sb.Status().Active() {
		b.Skip(sb.Status().Reason)
	}
	benchRun(b, "echo step >> steps.txt", nil, func(o *ManagerOptions) { o.Sandbox = sb })
}

// BenchmarkRunSandboxedDefaults is BenchmarkRunSandboxed with the
// sandbox template olly gives a session: sandbox.writable's nine build
// caches in a home folder (two exist, the rest are missing, as on most
// machines), the session's scratch directory allowed in the turn, and
// the workspace root among the allowed directories too (workspace.Dirs).
func BenchmarkRunSandboxedDefaults(b *testing.B) {
	sb := sandbox.New("")
	if !sb.Status().Active() {
		b.Skip(sb.Status().Reason)
	}
	home, state := b.TempDir(), b.TempDir()
	var caches []string
	for i, c := range []string{".cache", "go/pkg/mod", ".npm", ".cargo/registry", ".cargo/git", ".m2/repository", ".gradle/caches", ".pnpm-store", ".yarn/berry/cache"} {
		caches = append(caches, filepath.Join(home, c))
		if i < 2 {
			if err := os.MkdirAll(caches[i], 0o755); err != nil {
				b.Fatal(err)
			}
		}
	}
	scratch := filepath.Join(state, "scratch")
	mine := filepath.Join(scratch, "bench")
	if err := os.MkdirAll(mine, 0o700); err != nil {
		b.Fatal(err)
	}
	// A home folder not changed in the last second, as in a session (one
	// just changed is looked into by every command: stamps.go, racy).
	hourAgo := time.Now().Add(-time.Hour)
	if err := os.Chtimes(home, hourAgo, hourAgo); err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	benchRunIn(b, root, "echo step >> steps.txt", nil, RunOptions{Writable: []string{root, mine}}, func(o *ManagerOptions) {
		o.Sandbox = sb
		o.SandboxSpec = sandbox.Spec{Writable: caches, Caches: caches, DenyRead: []string{state}}
		o.ScratchDir = scratch
	})
}

func benchRun(b *testing.B, command string, setup []string, mods ...func(*ManagerOptions)) {
	benchRunIn(b, b.TempDir(), command, setup, RunOptions{}, mods...)
}

// benchRunIn runs command again and again in a session of a manager of
// root, with run's options, after the setup commands.
func benchRunIn(b *testing.B, root, command string, setup []string, run RunOptions, mods ...func(*ManagerOptions)) {
	opts := ManagerOptions{Roots: []string{root}, ArtifactDir: b.TempDir()}
	for _, mod := range mods {
		mod(&opts)
	}
	m, err := NewManager(opts)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = m.CloseAll() }()
	sh := m.Session("bench")
	ctx := context.Background()
	for _, c := range append(setup, "true") {
		if res, err := sh.Run(ctx, c, run); err != nil || res.ExitCode != 0 {
			b.Fatalf("%v %+v", err, res)
		}
	}
	b.ReportAllocs()
	cpu, own := treeCPU(b)
	for b.Loop() {
		res, err := sh.Run(ctx, command, run)
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("%v %+v", err, res)
		}
	}
	cpu2, own2 := treeCPU(b)
	b.ReportMetric(float64(cpu2-cpu)/float64(b.N)/1e6, "cpu-ms/op")
	b.ReportMetric(float64(own2-own)/float64(b.N)/1e6, "go-cpu-ms/op")
}

// treeCPU returns the CPU time used so far by this process, its children
// that were waited for, and its live children with what they waited for
// (the session's bash); and that of this process alone.
func treeCPU(b *testing.B) (tree, own time.Duration) {
	var self, kids syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids) != nil {
		b.Skip("no getrusage")
	}
	own = time.Duration(self.Utime.Nano() + self.Stime.Nano())
	total := own + time.Duration(kids.Utime.Nano()+kids.Stime.Nano())
	procs, err := listProcs()
	if err != nil {
		b.Skip("needs /proc for the CPU time of the session's bash")
	}
	for _, p := range procs {
		if p.ppid == os.Getpid() {
			total += procCPU(p.pid)
		}
	}
	return total, own
}

// procCPU returns pid's utime+stime+cutime+cstime (clock ticks of 10 ms).
func procCPU(pid int) time.Duration {
	bs, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(bs[bytes.LastIndexByte(bs, ')')+1:]))
	var ticks int64
	for _, i := range []int{11, 12, 13, 14} { // fields 14–17 of stat
		n, _ := strconv.ParseInt(f[i], 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
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

package shell

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/olly-agent/olly/internal/sandbox"
)

// BenchmarkFirstCommand is what a session's first command costs when
// nothing started its shell ahead: a new manager, the session's bash
// (with the sandbox's allow list and ruleset, and in a git workspace the
// mount-namespace helper), the command, and closing it all again.
// cpu-ms/op is the CPU time of the whole process tree per session.
func BenchmarkFirstCommand(b *testing.B) {
	sb := sandbox.New("")
	b.Run("plain", func(b *testing.B) { benchFirst(b, nil, false) })
	if !sb.Status().Active() {
		b.Log("no sandbox: ", sb.Status().Reason)
		return
	}
	b.Run("sandboxed", func(b *testing.B) { benchFirst(b, sb, false) })
	b.Run("sandboxed-git", func(b *testing.B) { benchFirst(b, sb, true) })
}

func benchFirst(b *testing.B, sb *sandbox.Sandbox, git bool) {
	ctx := context.Background()
	artifacts := b.TempDir()
	cpu, own := treeCPU(b)
	for b.Loop() {
		root := b.TempDir()
		if git {
			if err := os.Mkdir(filepath.Join(root, ".git"), 0o700); err != nil {
				b.Fatal(err)
			}
		}
		m, err := NewManager(ManagerOptions{Roots: []string{root}, ArtifactDir: artifacts, Sandbox: sb})
		if err != nil {
			b.Fatal(err)
		}
		res, err := m.Session("bench").Run(ctx, "echo step >> steps.txt", RunOptions{})
		if err != nil || res.ExitCode != 0 {
			b.Fatalf("%v %+v", err, res)
		}
		if err := m.CloseAll(); err != nil {
			b.Fatal(err)
		}
	}
	cpu2, own2 := treeCPU(b)
	b.ReportMetric(float64(cpu2-cpu)/float64(b.N)/1e6, "cpu-ms/op")
	b.ReportMetric(float64(own2-own)/float64(b.N)/1e6, "go-cpu-ms/op")
}

// BenchmarkAlternatePolicies is a read-only command followed by a
// workspace-write one (echo x, then an edit), as sessions often alternate:
// one op is the pair. Each switch used to replace the session's bash.
// echo x leaves the state alone, so nothing is handed over.
//
// The read-only command is a builtin (echo x) or a program (ls, cat
// file, as the agent's ls/cat/grep/git status are); "after-func" runs
// the same after a workspace-write command defined a function, so the
// session's state holds one (the read-only bash restores it too);
// "echo-caches" has olly's nine default build caches (most of them
// missing) in the sandbox's writable list, as the app's template has.
func BenchmarkAlternatePolicies(b *testing.B) {
	for _, c := range []struct {
		name, setup, ro string
		caches          bool
	}{
		{"echo", "export A=1", "echo x", false},
		{"ls", "export A=1", "ls", false},
		{"cat", "export A=1; echo hello > f.txt", "cat f.txt", false},
		{"echo-after-func", "f() { :; }; export A=1", "echo x", false},
		{"ls-after-func", "f() { :; }; export A=1", "ls", false},
		{"echo-caches", "export A=1", "echo x", true},
	} {
		b.Run(c.name, func(b *testing.B) {
			var spec sandbox.Spec
			if c.caches {
				home := b.TempDir()
				for _, d := range []string{".cache", "go/pkg/mod", ".npm", ".cargo/registry", ".cargo/git", ".m2/repository", ".gradle/caches", ".pnpm-store", ".yarn/berry/cache"} {
					spec.Writable = append(spec.Writable, filepath.Join(home, d))
				}
				if err := os.MkdirAll(spec.Writable[0], 0o755); err != nil {
					b.Fatal(err)
				}
			}
			benchAlternateSpec(b, spec, c.setup, func(int) string { return c.ro })
		})
	}
}

// BenchmarkReadOnlyHandOver is a read-only command that changes the state
// followed by a workspace-write one, so every op hands the read-only
// bash's state over to the workspace-write bash (as data: handover.go).
func BenchmarkReadOnlyHandOver(b *testing.B) {
	benchAlternate(b, "f() { :; }; export A=1", func(i int) string { return "A=" + strconv.Itoa(i) })
}

// benchAlternate runs setup in the workspace-write bash, then per op the
// read-only command ro(i) and a workspace-write edit.
func benchAlternate(b *testing.B, setup string, ro func(i int) string) {
	benchAlternateSpec(b, sandbox.Spec{}, setup, ro)
}

// benchAlternateSpec is benchAlternate with spec as the sandbox template.
func benchAlternateSpec(b *testing.B, spec sandbox.Spec, setup string, ro func(i int) string) {
	sb := sandbox.New("")
	if !sb.Status().Active() {
		b.Skip(sb.Status().Reason)
	}
	m, err := NewManager(ManagerOptions{Roots: []string{b.TempDir()}, ArtifactDir: b.TempDir(), Sandbox: sb, SandboxSpec: spec})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = m.CloseAll() }()
	sh := m.Session("bench")
	ctx := context.Background()
	run := func(c string, p sandbox.Policy) {
		if res, err := sh.Run(ctx, c, RunOptions{Policy: p}); err != nil || res.ExitCode != 0 {
			b.Fatalf("%v %+v", err, res)
		}
	}
	run(setup, sandbox.WorkspaceWrite)
	cpu, own := treeCPU(b)
	i := 0
	for b.Loop() {
		i++
		run(ro(i), sandbox.ReadOnly)
		run("echo step >> steps.txt", sandbox.WorkspaceWrite)
	}
	cpu2, own2 := treeCPU(b)
	b.ReportMetric(float64(cpu2-cpu)/float64(b.N)/1e6, "cpu-ms/op")
	b.ReportMetric(float64(own2-own)/float64(b.N)/1e6, "go-cpu-ms/op")
}

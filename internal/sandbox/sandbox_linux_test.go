//go:build linux

package sandbox

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	RunHelperIfAsked()
	os.Exit(m.Run())
}

type fixture struct {
	ws, outside, secret, state string
	port                       int
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	f := fixture{ws: filepath.Join(dir, "ws"), outside: filepath.Join(dir, "outside"), secret: filepath.Join(dir, "secret", "key"), state: filepath.Join(dir, "state")}
	for _, d := range []string{f.ws, f.outside, filepath.Dir(f.secret), f.state} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(f.secret, []byte("hunter2"), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	f.port = ln.Addr().(*net.TCPAddr).Port
	return f
}

func (f fixture) spec(p Policy) Spec {
	return Spec{Policy: p, Writable: []string{f.ws}, Own: []string{f.state}, DenyRead: []string{filepath.Dir(f.secret)}}
}

func activeSandbox(t *testing.T) *Sandbox {
	t.Helper()
	b := New("")
	if !b.Status().Active() {
		t.Skipf("no sandbox on this machine (%s): these tests need Landlock (Linux 5.13+ with Landlock enabled)", b.Status().Reason)
	}
	return b
}

// run runs script under spec with b.Start (a confined thread of this
// process, or the helper for b.WithHelper()).
func run(t *testing.T, b *Sandbox, spec Spec, script string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command("bash", "--noprofile", "--norc", "-c", script)
	cmd.Stdout, cmd.Stderr = &out, &out
	waitc, err := b.Start(cmd, spec)
	if err != nil {
		t.Fatal(err)
	}
	err = <-waitc
	return out.String(), err
}

func TestPoliciesRefuseWhatTheyMust(t *testing.T) {
	b := activeSandbox(t)
	f := newFixture(t)
	canary := filepath.Join(f.outside, "canary")
	type probe struct {
		name, script string
		refused      bool
		access       string
	}
	probes := func(p Policy) []probe {
		return []probe{
			// Paths quoted: a TMPDIR may hold a space.
			{"write outside", "echo pwned > '" + canary + "'", p != Unsandboxed, "write"},
			{"read protected", "cat '" + f.secret + "'", p != Unsandboxed, "read"},
			{"connect tcp", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", f.port), p != Unsandboxed, "network"},
			{"write workspace", "echo ok > '" + filepath.Join(f.ws, "out.txt") + "'", p == ReadOnly, "write"},
			{"write state", "echo ok > '" + filepath.Join(f.state, "s.txt") + "'", false, ""},
			{"read elsewhere", "head -c1 /etc/hostname >/dev/null && ls / >/dev/null", false, ""},
		}
	}
	for _, how := range []string{"thread", "helper"} {
		b := b
		if how == "helper" {
			b = b.WithHelper()
		}
		for _, p := range []Policy{ReadOnly, WorkspaceWrite, Unsandboxed} {
			for _, pr := range probes(p) {
				t.Run(how+"/"+string(p)+"/"+pr.name, func(t *testing.T) {
					_ = os.Remove(canary)
					out, err := run(t, b, f.spec(p), pr.script)
					if !pr.refused {
						if err != nil {
							t.Fatalf("refused: %v\n%s", err, out)
						}
						return
					}
					if err == nil {
						t.Fatalf("ran without refusal:\n%s", out)
					}
					if strings.Contains(out, "hunter2") {
						t.Fatalf("the protected file was read:\n%s", out)
					}
					if _, err := os.Stat(canary); err == nil {
						t.Fatal("the file outside the workspace was written")
					}
					got := Explain(f.spec(p), f.ws, "", out)
					if len(got) == 0 || got[0].Access != pr.access {
						t.Fatalf("Explain = %+v, want a %s refusal, from output:\n%s", got, pr.access, out)
					}
					if n := Note(p, got); !strings.Contains(n, "escalate") || !strings.Contains(n, string(p)) {
						t.Fatalf("note %q does not say the policy and how to escalate", n)
					}
				})
			}
		}
	}
}

// TestConfinedThreadDoesNotLeak checks that olly itself stays
// unconfined after starting confined commands: the thread that started
// one ends with it.
func TestConfinedThreadDoesNotLeak(t *testing.T) {
	b := activeSandbox(t)
	f := newFixture(t)
	for range 20 {
		if out, err := run(t, b, f.spec(ReadOnly), "true"); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	// Every goroutine may now run on any thread: writing outside must work.
	done := make(chan error, 8)
	for i := range 8 {
		go func() { done <- os.WriteFile(filepath.Join(f.outside, fmt.Sprintf("olly-%d", i)), []byte("x"), 0o644) }()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatalf("olly itself was left confined: %v", err)
		}
	}
}

func TestNetworkSetting(t *testing.T) {
	b := activeSandbox(t)
	if b.Status().ABI < minNetABI {
		t.Skipf("Landlock ABI %d cannot restrict TCP", b.Status().ABI)
	}
	f := newFixture(t)
	spec := f.spec(WorkspaceWrite)
	spec.Network = true
	if out, err := run(t, b, spec, fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", f.port)); err != nil || !strings.Contains(out, "connected") {
		t.Fatalf("sandbox.network on, connect refused: %v\n%s", err, out)
	}
}

func TestHelperNeverRunsUnconfined(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	for name, spec := range map[string]string{
		"bad json":       "{",
		"unknown policy": `{"policy":"everything"}`,
		"relative path":  `{"policy":"workspace-write","writable":["rel"]}`,
	} {
		t.Run(name, func(t *testing.T) {
			out, err := exec.Command(exe, HelperArg, spec, "touch", marker).CombinedOutput()
			if err == nil {
				t.Fatalf("helper succeeded with a bad spec:\n%s", out)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the program ran")
			}
			if !strings.Contains(string(out), "olly sandbox") {
				t.Fatalf("error does not say it is the sandbox: %s", out)
			}
		})
	}
}

func BenchmarkSandboxedCommand(b *testing.B) {
	sb := New("")
	if !sb.Status().Active() {
		b.Skip("no sandbox: " + sb.Status().Reason)
	}
	home, _ := os.UserHomeDir()
	spec := Spec{Policy: WorkspaceWrite, Writable: []string{b.TempDir(), filepath.Join(home, ".cache"), filepath.Join(home, "go", "pkg", "mod")},
		Own: []string{b.TempDir()}, DenyRead: DefaultDenyRead(home)}
	// The git modes run in a workspace holding a .git, kept read-only
	// by a mount namespace (the default where it works) or by per-entry
	// rules.
	repo := b.TempDir()
	if err := os.Mkdir(filepath.Join(repo, GitDir), 0o755); err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"bare", "thread", "helper", "git-mount", "git-split"} {
		b.Run(mode, func(b *testing.B) {
			use := sb
			p := spec
			switch mode {
			case "helper":
				use = sb.WithHelper()
			case "bare":
				p.Policy = Unsandboxed
			case "git-mount":
				if st := sb.Status(); st.Git != GitMount {
					b.Skip("no mount namespace: " + st.GitReason)
				}
			case "git-split":
				use = withGit(sb, GitSplit)
			}
			if strings.HasPrefix(mode, "git") {
				p.Writable = append([]string{repo}, p.Writable...)
			}
			b.ReportAllocs()
			// CPU time (olly's and the children's) says what the set-up
			// costs on a loaded machine better than wall time does.
			cpu0 := cpuTime()
			for b.Loop() {
				waitc, err := use.Start(exec.Command("/bin/true"), p)
				if err != nil {
					b.Fatal(err)
				}
				if err := <-waitc; err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

func BenchmarkPlan(b *testing.B) {
	home, _ := os.UserHomeDir()
	spec := Spec{Policy: WorkspaceWrite, Writable: []string{b.TempDir(), filepath.Join(home, ".cache")}, DenyRead: DefaultDenyRead(home)}
	b.ReportAllocs()
	for b.Loop() {
		Plan(spec)
	}
}

// cpuTime is the user and system time of this process and its waited-for
// children.
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

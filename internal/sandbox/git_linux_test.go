//go:build linux

package sandbox

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// withGit returns a copy of b that keeps .git read-only the way how says,
// without probing.
func withGit(b *Sandbox, how string) *Sandbox {
	c := *b
	c.git = &gitGuard{how: how, reason: "chosen by the test"}
	c.git.once.Do(func() {})
	return &c
}

// gitFixture is a workspace holding a git repository with a hook and a
// submodule whose .git is a pointer file, and a file outside it.
type gitFixture struct {
	ws, outside string
	files       map[string]string // protected file -> content
}

func newGitFixture(t testing.TB) gitFixture {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	f := gitFixture{ws: filepath.Join(dir, "ws"), outside: filepath.Join(dir, "outside")}
	f.files = map[string]string{
		".git/config":             "[core]\n\trepositoryformatversion = 0\n",
		".git/HEAD":               "ref: refs/heads/main\n",
		".git/hooks/pre-push":     "#!/bin/sh\nexit 0\n",
		".git/modules/sub/config": "[core]\n\tworktree = ../../../sub\n",
		"sub/.git":                "gitdir: ../.git/modules/sub\n",
		".gitmodules":             "[submodule \"sub\"]\n\tpath = sub\n\turl = ./sub\n[submodule \"pending\"]\n\tpath = pending\n\turl = ./p\n",
		// A submodule of the submodule: .gitmodules does not name it.
		".git/modules/sub/modules/inner/config": "[core]\n\tworktree = ../../../../../sub/inner\n",
		"sub/inner/.git":                        "gitdir: ../../.git/modules/sub/modules/inner\n",
		// Repositories that are not submodules: a clone, a linked
		// worktree's pointer, a bare repository, a package cloned into
		// node_modules.
		"third_party/lib/.git/config": "[core]\n\tbare = false\n",
		"third_party/lib/.git/HEAD":   "ref: refs/heads/main\n",
		"tools/wt/.git":               "gitdir: ../../.git/worktrees/wt\n",
		"vendor/bare.git/HEAD":        "ref: refs/heads/main\n",
		"vendor/bare.git/config":      "[core]\n\tbare = true\n",
		"node_modules/pkg/.git/HEAD":  "ref: refs/heads/main\n",
		// A submodule the git folder records but not checked out (its
		// folder is empty).
		".git/modules/lazy/config": "[core]\n\tworktree = ../../../lazy\n",
	}
	for _, d := range []string{".git/objects", ".git/refs/heads", ".git/hooks", ".git/modules/sub/hooks", ".git/modules/sub/modules/inner", "sub/inner",
		"third_party/lib/.git/hooks", "third_party/lib/.git/objects", "tools/wt", ".git/worktrees/wt",
		"vendor/bare.git/hooks", "vendor/bare.git/objects", "vendor/bare.git/refs", "node_modules/pkg/.git/hooks", ".git/modules/lazy", "lazy", "pending"} {
		must(t, os.MkdirAll(filepath.Join(f.ws, d), 0o755))
	}
	must(t, os.MkdirAll(f.outside, 0o755))
	for name, content := range f.files {
		must(t, os.WriteFile(filepath.Join(f.ws, name), []byte(content), 0o755))
	}
	must(t, os.WriteFile(filepath.Join(f.outside, "evil"), []byte("#!/bin/sh\ntouch /tmp/pwned\n"), 0o755))
	delete(f.files, ".gitmodules") // workspace content, not git metadata
	return f
}

func (f gitFixture) spec() Spec {
	return Spec{Policy: WorkspaceWrite, Writable: []string{f.ws}}
}

// check fails the test if a protected file changed or a hook appeared.
func (f gitFixture) check(t *testing.T, what string) {
	t.Helper()
	for name, want := range f.files {
		got, err := os.ReadFile(filepath.Join(f.ws, name))
		if err != nil || string(got) != want {
			t.Fatalf("%s: %s changed (%v): %q", what, name, err, got)
		}
	}
	for _, hook := range []string{".git/hooks/pre-commit", ".git/modules/sub/hooks/post-checkout", ".git/commondir",
		"third_party/lib/.git/hooks/pre-commit", "vendor/bare.git/hooks/post-update", "node_modules/pkg/.git/hooks/pre-commit",
		"lazy/.git", "pending/.git", "third_party/lib/.git-old"} {
		if _, err := os.Lstat(filepath.Join(f.ws, hook)); err == nil {
			t.Fatalf("%s: %s was created", what, hook)
		}
	}
}

// gitAttacks are what an auto-approved command could do to make code run
// later, unsandboxed, through git.
var gitAttacks = map[string]string{
	"plant a hook":                      "printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
	"copy a hook in":                    "cp ../outside/evil .git/hooks/pre-commit",
	"move a hook in":                    "cp ../outside/evil ./x && mv ./x .git/hooks/pre-commit",
	"rewrite the config":                "printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> .git/config",
	"replace the config":                "printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' > c && mv -f c .git/config",
	"point commondir elsewhere":         "echo /tmp > .git/commondir",
	"replace .git":                      "mv .git .git-old && mkdir .git",
	"delete .git":                       "rm -rf .git",
	"redirect a submodule":              "echo 'gitdir: /tmp/evil' > sub/.git",
	"replace a submodule's .git":        "rm -f sub/.git && echo 'gitdir: /tmp/evil' > sub/.git",
	"plant a submodule hook":            "cp ../outside/evil .git/modules/sub/hooks/post-checkout",
	"redirect a nested submodule":       "echo 'gitdir: /tmp/evil' > sub/inner/.git",
	"replace a nested submodule's .git": "rm -f sub/inner/.git && echo 'gitdir: /tmp/evil' > sub/inner/.git",
	// Nested repositories that are not submodules.
	"plant a hook in a nested clone":            "cp ../outside/evil third_party/lib/.git/hooks/pre-commit",
	"rewrite a nested clone's config":           "printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> third_party/lib/.git/config",
	"replace a nested clone's .git":             "mv third_party/lib/.git third_party/lib/.git-old && mkdir third_party/lib/.git",
	"redirect a linked worktree":                "echo 'gitdir: /tmp/evil' > tools/wt/.git",
	"plant a hook in a bare repository":         "cp ../outside/evil vendor/bare.git/hooks/post-update",
	"rewrite a bare repository's config":        "echo '[core] fsmonitor = x' >> vendor/bare.git/config",
	"plant a hook in a package's clone":         "cp ../outside/evil node_modules/pkg/.git/hooks/pre-commit",
	"plant .git in a submodule not checked out": "mkdir lazy/.git",
	"plant .git where .gitmodules points":       "echo 'gitdir: /tmp/evil' > pending/.git",
	// Folders above a protected .git: renamed away, a new .git is put
	// where the person's git looks.
	"move a nested clone's folder away":     "mv third_party/lib x && mkdir -p third_party/lib/.git",
	"move the folder above a nested clone":  "mv third_party y && mkdir -p third_party/lib/.git",
	"move a submodule's folder away":        "mv sub sub2 && mkdir sub && echo 'gitdir: /tmp/evil' > sub/.git",
	"move a nested submodule's folder away": "mv sub/inner sub/inner2 && mkdir sub/inner && echo 'gitdir: /tmp/evil' > sub/inner/.git",
}

const nestedAttack = "undo the mount in a nested namespace"

func TestGitStaysReadOnly(t *testing.T) {
	base := activeSandbox(t)
	modes := map[string]*Sandbox{
		"split/thread": withGit(base, GitSplit),
		"split/helper": withGit(base.WithHelper(), GitSplit),
	}
	if st := base.Status(); st.Git == GitMount {
		modes["mount"] = base
	} else {
		t.Logf("mount namespace mode not tested: %s", st.GitReason)
	}
	attacks := maps.Clone(gitAttacks)
	if _, err := exec.LookPath("unshare"); err == nil {
		// A nested user namespace holds every capability; the mounts it
		// copies are locked, and Landlock forbids mount and umount.
		attacks[nestedAttack] = "unshare -Urm sh -c 'umount -l .git; mount -o remount,rw .git; echo x >> .git/config'"
	} else {
		t.Log("unshare (util-linux) is not installed: the nested namespace attack is not tried")
	}
	for mode, b := range modes {
		for name, script := range attacks {
			if mode == "split/helper" && !strings.Contains(name, "hook") {
				continue // the same rules as split/thread, applied in another process: a sample is enough
			}
			t.Run(mode+"/"+name, func(t *testing.T) {
				f := newGitFixture(t)
				out, err := runIn(t, b, f.spec(), f.ws, script)
				if err == nil {
					t.Fatalf("the attack succeeded:\n%s", out)
				}
				f.check(t, name)
				if name == nestedAttack && !strings.Contains(out, ".git") {
					return // refused before reaching .git (an ordinary user's Landlock forbids writing uid_map)
				}
				got := b.Explain(f.spec(), f.ws, "", out)
				if len(got) == 0 || !strings.Contains(Note(WorkspaceWrite, got), ".git") {
					t.Fatalf("the refusal is not explained as .git's: %+v from\n%s", got, out)
				}
			})
		}
	}
}

// runIn runs script in dir under spec.
func runIn(t *testing.T, b *Sandbox, spec Spec, dir, script string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", "--noprofile", "--norc", "-c", script)
	cmd.Dir = dir
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	waitc, err := b.Start(cmd, spec)
	if err != nil {
		t.Fatal(err)
	}
	err = <-waitc
	return out.String(), err
}

// everyday are commands a workspace-write command runs all the time, and
// whether they work when .git is kept read-only by a mount namespace and
// by per-entry rules.
var everyday = []struct {
	name, script string
	mount, split bool
}{
	{"create and delete at the top", "touch new && mkdir d && echo x > d/f && rm -r d new", true, false},
	{"build into the top", "printf '#!/bin/sh\\n' > app && chmod +x app && ./app", true, false},
	{"sed -i at the top", "sed -i s/hello/bye/ README", true, false},
	{"change a file at the top", "echo more >> README", true, true},
	{"create and delete below", "mkdir -p src/a && echo x > src/a/f && rm -r src/a", true, true},
	{"git status", "git status --short", true, true},
	{"git diff", "echo more >> README && git diff --stat", true, true},
	{"git log", "git log --oneline -1", true, true},
}

func gitRepo(t *testing.T) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed (apt-get install -y git)")
	}
	ws := filepath.Join(t.TempDir(), "ws")
	must(t, os.MkdirAll(filepath.Join(ws, "src"), 0o755))
	must(t, os.WriteFile(filepath.Join(ws, "README"), []byte("hello\n"), 0o644))
	script := "git init -q -b main && git add -A && git -c user.name=t -c user.email=t@e commit -qm init"
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir, cmd.Env = ws, append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", git, err, out)
	}
	return ws
}

func TestGitEverydayCommands(t *testing.T) {
	base := activeSandbox(t)
	modes := map[string]*Sandbox{GitSplit: withGit(base, GitSplit)}
	if st := base.Status(); st.Git == GitMount {
		modes[GitMount] = base
	} else {
		t.Logf("mount namespace mode not tested: %s", st.GitReason)
	}
	for how, b := range modes {
		ws := gitRepo(t) // one repository per mode, the commands in turn
		spec := Spec{Policy: WorkspaceWrite, Writable: []string{ws}}
		for _, c := range everyday {
			t.Run(how+"/"+c.name, func(t *testing.T) {
				out, err := runIn(t, b, spec, ws, "export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1; "+c.script)
				want := c.mount
				if how == GitSplit {
					want = c.split
				}
				switch {
				case want && err != nil:
					t.Fatalf("failed: %v\n%s", err, out)
				case !want && err == nil:
					t.Fatalf("worked, though %s should refuse it (update the table and docs/safety.md):\n%s", how, out)
				case !want && len(b.Explain(spec, ws, "", out)) == 0:
					t.Fatalf("the refusal is not explained:\n%s", out)
				}
			})
		}
		t.Run(how+"/git commit is refused and explained", func(t *testing.T) {
			out, err := runIn(t, b, spec, ws, "echo x >> README && git -c user.name=t -c user.email=t@e commit -qam x")
			if err == nil {
				t.Fatalf("git commit wrote .git:\n%s", out)
			}
			got := b.Explain(spec, ws, "", out)
			if len(got) == 0 || got[0].Access != "git" || !strings.Contains(Note(WorkspaceWrite, got), "escalate") {
				t.Fatalf("Explain = %+v, want a .git refusal and how to escalate, from:\n%s", got, out)
			}
		})
	}
}

// TestMountModeDropsSysAdmin checks that the command itself holds no
// CAP_SYS_ADMIN, with which it could make the mounts writable again.
func TestMountModeDropsSysAdmin(t *testing.T) {
	b := activeSandbox(t)
	if st := b.Status(); st.Git != GitMount {
		t.Skipf("no mount namespace here: %s", st.GitReason)
	}
	f := newGitFixture(t)
	out, err := runIn(t, b, f.spec(), f.ws, "grep -E '^Cap(Eff|Prm|Inh|Amb):' /proc/self/status")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for line := range strings.Lines(out) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), ":")
		caps, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if caps&(1<<21) != 0 { // CAP_SYS_ADMIN
			t.Errorf("%s holds CAP_SYS_ADMIN: %s", k, line)
		}
	}
}

// TestGitAsNonRoot runs the .git tests again as an ordinary user (the
// tests run as root in CI containers; a person's olly does not): the
// namespace then needs an unprivileged user namespace and an ambient
// capability.
func TestGitAsNonRoot(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("not root: the other tests already run as an ordinary user")
	}
	if os.Getenv("OLLY_TEST_NONROOT") != "" {
		t.Skip("already the non-root run")
	}
	activeSandbox(t)
	exe, err := os.Executable()
	must(t, err)
	dir, err := os.MkdirTemp("", "olly-nonroot-*")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	must(t, os.Chmod(dir, 0o755))
	data, err := os.ReadFile(exe)
	must(t, err)
	bin := filepath.Join(dir, "sandbox.test")
	must(t, os.WriteFile(bin, data, 0o755))
	must(t, os.Chmod(bin, 0o755)) // WriteFile's mode is under the umask (077 left it 0700: uid 65534 could not run it)
	tmp := filepath.Join(dir, "tmp")
	must(t, os.Mkdir(tmp, 0o700))
	must(t, os.Chmod(tmp, 0o777|os.ModeSticky))
	cmd := exec.Command(bin, "-test.run", "^(TestGitStaysReadOnly|TestGitEverydayCommands|TestMountModeDropsSysAdmin|TestFindNestedSaysUnreadable|TestUnreadableFolderKeptReadOnly)$/^mount", "-test.v", "-test.count=1")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmp, "TMPDIR=" + tmp, "OLLY_TEST_NONROOT=1"}
	cmd.Dir = tmp
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as uid 65534: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestFindNestedSaysUnreadable") {
		t.Errorf("as uid 65534 the unreadable-folder test did not pass:\n%s", firstLines(string(out), 20))
	}
	if !strings.Contains(string(out), "--- PASS: TestGitStaysReadOnly/mount/") {
		t.Skipf("as uid 65534 the mount namespace mode was not available (unprivileged user namespaces off?):\n%s", firstLines(string(out), 5))
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "")
}

// TestGitFallsBackToSplit: where the helper cannot make .git read-only
// (here: a "helper" that always fails), the sandbox says so and uses
// per-entry rules, which still keep .git read-only.
func TestGitFallsBackToSplit(t *testing.T) {
	activeSandbox(t)
	b := New("/bin/false")
	st := b.Status()
	if st.Git != GitSplit || st.GitReason == "" || !strings.Contains(st.String(), "per-entry rules") {
		t.Fatalf("status = %+v (%s)", st, st.String())
	}
	f := newGitFixture(t)
	if out, err := runIn(t, b, f.spec(), f.ws, gitAttacks["plant a hook"]); err == nil {
		t.Fatalf("the hook was planted:\n%s", out)
	}
	f.check(t, "fallback")
}

// BenchmarkGitProbe is what the first Status call of an olly process
// costs: probing whether a mount namespace can keep .git read-only.
func BenchmarkGitProbe(b *testing.B) {
	if !New("").Status().Active() {
		b.Skip("no sandbox")
	}
	cpu0 := cpuTime()
	for b.Loop() {
		if st := New("").Status(); st.Git == "" {
			b.Fatal("no answer")
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
}

package shell

import (
	"testing"
)

// TestDriverOwnSaveIsHandedOver: a command olly found stateless (save
// flag 0) that bash finds is an alias or a function is saved by the
// driver all the same; that save is the session's newest state, so the
// next command in the other bash takes it over (as data from the
// read-only bash), and the session keeps it after more switches.
func TestDriverOwnSaveIsHandedOver(t *testing.T) {
	for _, c := range []struct{ name, define string }{
		{"alias", `alias ls='export LSA=1; echo aliased'`},
		{"function", `ls() { export LSA=1; g() { echo g; }; echo aliased; }`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m, _, _, _ := sandboxed(t)
			sh := m.Session("s")
			mustRun(t, sh, c.define, readWrite)
			mustRun(t, sh, "echo x", readOnly)
			res := mustRun(t, sh, "ls", readOnly)
			if res.Output != "aliased" {
				t.Fatalf("ls in the read-only bash: %s", res.Text())
			}
			if !savedAfter(sh) {
				t.Fatal("the driver did not save after ls (the test needs its own save)")
			}
			if res := mustRun(t, sh, `echo "lsa=$LSA"`, readWrite); res.Output != "lsa=1" {
				t.Errorf("the write bash after ls: %s, want lsa=1", res.Text())
			}
			// The read-only bash's save reaches it as data only: the
			// function g that ls defined there does not.
			if res := mustRun(t, sh, `type -t g || echo nog`, readWrite); res.Output != "nog" {
				t.Errorf("a function the read-only bash defined reached the write bash: %s", res.Text())
			}
			if res := mustRun(t, sh, `echo "lsa=$LSA"`, readOnly); res.Output != "lsa=1" {
				t.Errorf("the read-only bash after the switch back: %s, want lsa=1", res.Text())
			}
			if res := mustRun(t, sh, `echo "lsa=$LSA"`, readWrite); res.Output != "lsa=1" {
				t.Errorf("the write bash again: %s, want lsa=1", res.Text())
			}
		})
	}
}

// TestExitSaveOfStatelessCommandIsHandedOver: a command olly found
// stateless that is a function ending bash (exit) is saved by the EXIT
// trap; the bash that replaces it restores that save, and the other bash,
// idle meanwhile, takes it over too.
func TestExitSaveOfStatelessCommandIsHandedOver(t *testing.T) {
	m, _, _, _ := sandboxed(t)
	sh := m.Session("s")
	mustRun(t, sh, `ls() { export LSE=1; exit 3; }`, readWrite)
	mustRun(t, sh, "echo x", readOnly)
	if res := mustRun(t, sh, "ls", readOnly); res.ExitCode != 3 {
		t.Fatalf("ls in the read-only bash: %s", res.Text())
	}
	if res := mustRun(t, sh, `echo "lse=$LSE"`, readWrite); res.Output != "lse=1" {
		t.Errorf("the write bash after ls: %s, want lse=1", res.Text())
	}
	if res := mustRun(t, sh, `echo "lse=$LSE"`, readOnly); res.Output != "lse=1" {
		t.Errorf("the read-only bash after the switch back: %s, want lse=1", res.Text())
	}
}

package checkpoint

import (
	"strings"
	"testing"
)

func TestApplySession(t *testing.T) {
	tests := []struct {
		name      string
		action    string
		path      string
		wantA     string // a.txt afterwards
		wantB     string
		outcomes  int
		stillOpen int // checkpoints left pending
	}{
		{"undo everything, newest first", ActionUndo, "", "one\n", "<missing>", 2, 0},
		{"undo one file in every run", ActionUndo, "a.txt", "one\n", "b\n", 2, 1},
		{"keep one file", ActionKeep, "b.txt", "one\nthree\n", "b\n", 1, 2},
		{"keep everything", ActionKeep, "", "one\nthree\n", "b\n", 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.put("a.txt", "one\n")
			r1 := e.begin()
			e.write(r1, "a.txt", "one\ntwo\n")
			e.write(r1, "b.txt", "b\n")
			e.report(r1)
			r2 := e.begin()
			e.write(r2, "a.txt", "one\nthree\n")
			e.report(r2)

			outs, err := e.m.ApplySession(e.ctx, e.session, tt.action, tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if len(outs) != tt.outcomes {
				t.Errorf("%d outcomes, want %d", len(outs), tt.outcomes)
			}
			if tt.action == ActionUndo && len(outs) == 2 && outs[0].CheckpointID < outs[1].CheckpointID {
				t.Error("undo ran the older checkpoint first")
			}
			if got := e.read("a.txt"); got != tt.wantA {
				t.Errorf("a.txt = %q, want %q", got, tt.wantA)
			}
			if got := e.read("b.txt"); got != tt.wantB {
				t.Errorf("b.txt = %q, want %q", got, tt.wantB)
			}
			open, err := e.m.Pending(e.ctx, e.session)
			if err != nil {
				t.Fatal(err)
			}
			if len(open) != tt.stillOpen {
				t.Errorf("%d checkpoints still pending, want %d", len(open), tt.stillOpen)
			}
		})
	}
}

func TestApplySessionRefusals(t *testing.T) {
	e := newEnv(t)
	for _, tt := range []struct{ name, action, path, want string }{
		{"nothing pending", ActionUndo, "", "has no pending changes"},
		{"unknown file", ActionKeep, "nope.go", "nope.go has no pending changes"},
		{"bad action", "redo", "", `unknown action "redo"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.m.ApplySession(e.ctx, e.session, tt.action, tt.path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// SessionChanges lists the pending checkpoints and totals only what is
// still pending: a kept file of a checkpoint that stays open drops out.
func TestSessionChanges(t *testing.T) {
	e := newEnv(t)
	e.put("a.txt", "one\n")
	r1 := e.begin()
	e.write(r1, "a.txt", "one\ntwo\n")
	e.write(r1, "b.txt", "b\nc\n")
	e.report(r1)
	ch, err := e.m.SessionChanges(e.ctx, e.session)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Checkpoints) != 1 || ch.Pending.Additions != 3 || ch.Pending.Deletions != 0 || ch.Pending.Files != 2 {
		t.Fatalf("changes: %d checkpoints, pending %+v", len(ch.Checkpoints), ch.Pending)
	}
	if ids := ch.IDs(); len(ids) != 1 || ids[0] != ch.Checkpoints[0].ID {
		t.Errorf("ids %v", ids)
	}
	if _, err := e.m.ApplySession(e.ctx, e.session, ActionKeep, "b.txt"); err != nil {
		t.Fatal(err)
	}
	ch, err = e.m.SessionChanges(e.ctx, e.session)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Checkpoints) != 1 || ch.Pending.Additions != 1 || ch.Pending.Files != 1 {
		t.Errorf("after keeping b.txt: %d checkpoints, pending %+v", len(ch.Checkpoints), ch.Pending)
	}
}

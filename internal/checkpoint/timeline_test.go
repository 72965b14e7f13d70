package checkpoint

import (
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/timeline"
)

// widgets replays what the manager emitted through the timeline builder
// every frontend uses, and returns the changed-files widgets' files by
// checkpoint.
func widgets(e *env, evs []emitted) map[string][]event.ChangedFile {
	var list []event.Event
	for i, ev := range evs {
		list = append(list, event.Event{Session: ev.session, Seq: int64(i + 1), Turn: ev.turn, Data: ev.payload})
	}
	out := map[string][]event.ChangedFile{}
	for _, it := range timeline.Build(list).Items {
		for _, b := range it.Blocks {
			if b.Kind == timeline.BlockFiles {
				out[b.Files.CheckpointID] = b.Files.Files
			}
		}
	}
	return out
}

// The events keep the frontends' widgets right: one widget per checkpoint
// however many reports (pitfall #14), updated counts after a hunk
// (pitfall #22), files gone once resolved, and a conflicting undo leaves
// its file in place.
func TestEventsDriveTheWidget(t *testing.T) {
	e := newEnv(t)
	orig, agent := threeHunks()
	e.put("f.txt", orig)
	e.put("g.txt", "g\n")
	run := e.begin()
	id := e.write(run, "f.txt", agent)
	e.report(run)
	e.write(run, "g.txt", "g2\n")
	e.write(run, "f.txt", agent+"tail\n")
	e.report(run)
	all := func() []emitted {
		e.rec.mu.Lock()
		defer e.rec.mu.Unlock()
		return append([]emitted(nil), e.rec.events...)
	}
	w := widgets(e, all())
	if len(w) != 1 || len(w[id]) != 2 || w[id][0].Path != "f.txt" || w[id][0].Additions != 4 || w[id][1].Path != "g.txt" {
		t.Fatalf("widget after two reports: %+v", w)
	}
	e.undo(Selector{Checkpoint: id, Path: "f.txt", Hunk: 1})
	if w := widgets(e, all()); w[id][0].Additions != 3 || w[id][0].Deletions != 2 {
		t.Errorf("counts after undoing a hunk: %+v", w[id][0])
	}
	e.put("g.txt", "mine\n")
	e.undo(Selector{Checkpoint: id, Path: "g.txt"})
	if w := widgets(e, all()); len(w[id]) != 2 {
		t.Errorf("a conflicting undo removed the file: %+v", w[id])
	}
	e.keep(Selector{Checkpoint: id, Path: "f.txt"})
	if w := widgets(e, all()); len(w[id]) != 1 || w[id][0].Path != "g.txt" {
		t.Errorf("after keeping f.txt: %+v", w[id])
	}
	e.keep(Selector{Checkpoint: id})
	if w := widgets(e, all()); len(w) != 0 {
		t.Errorf("the widget outlived its checkpoint: %+v", w)
	}
}

package checkpoint

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/store"
)

// TestPropertyKeepUndo drives random agent runs (text and binary files,
// created and modified, several checkpoints, files written again within a
// run and across runs), then random keeps and undos of hunks, files and
// whole checkpoints, and after every step compares the workspace, byte for
// byte and mode for mode, with the reference model (property_model_test.go),
// and each snapshot's state with the model's. Finally every checkpoint is
// undone, newest first. When no keep or undo came before, that must give
// back the original tree exactly.
func TestPropertyKeepUndo(t *testing.T) {
	seeds := 80
	if testing.Short() || raceEnabled {
		seeds = 25
	}
	st := openStore(t) // one database, a session per case: opening costs more than a case
	for seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { runProperty(t, st, uint64(seed)) })
	}
}

var (
	preexisting = []string{"a.txt", "b.txt", "sub/c.txt", "mode.sh", "bin.dat", "empty.txt"}
	fresh       = []string{"new.txt", "d1/n2.txt", "d1/d2/n3.txt", "d3/n.bin", "e/empty.txt"}
)

type propRun struct {
	t    *testing.T
	r    *rand.Rand
	e    *env
	md   *model
	ids  []string
	uniq int
}

func runProperty(t *testing.T, st *store.Store, seed uint64) {
	p := &propRun{t: t, r: rand.New(rand.NewPCG(seed, 0x5eed)), e: newEnvIn(t, st), md: newModel()}
	p.seedTree()
	original := p.cloneTree()
	for range 2 + p.r.IntN(3) {
		p.agentRun()
	}
	p.md.checkTree(t, p.e.root, "after the agent runs")
	ops := 0
	if p.r.IntN(3) > 0 {
		ops = 1 + p.r.IntN(14)
	}
	for i := range ops {
		p.randomOp(fmt.Sprintf("op %d", i+1))
	}
	for i := len(p.ids) - 1; i >= 0; i-- {
		// With nothing kept or undone before, newest first never conflicts.
		p.all(p.ids[i], ActionUndo, ops == 0, "final undo of checkpoint "+fmt.Sprint(i+1))
	}
	if ops == 0 {
		p.md.files, p.md.dirs = original.files, original.dirs
		p.md.checkTree(t, p.e.root, "undo of every checkpoint, newest first, did not restore the original tree")
	}
}

func (p *propRun) seedTree() {
	for _, path := range preexisting {
		var data []byte
		mode := fs.FileMode(0o644)
		switch path {
		case "bin.dat":
			data, mode = p.binary(), 0o600
		case "empty.txt":
		case "mode.sh":
			data, mode = p.text(3+p.r.IntN(10)), 0o755
		default:
			data = p.text(5 + p.r.IntN(25))
		}
		p.e.put(path, string(data))
		if err := os.Chmod(p.e.abs(path), mode); err != nil {
			p.t.Fatal(err)
		}
		p.md.put(path, data, mode)
	}
}

func (p *propRun) cloneTree() *model {
	c := newModel()
	for k, v := range p.md.files {
		c.files[k] = v
	}
	for k := range p.md.dirs {
		c.dirs[k] = true
	}
	return c
}

// agentRun writes a few files in one checkpoint.
func (p *propRun) agentRun() {
	run := p.e.begin()
	for range 1 + p.r.IntN(6) {
		var path string
		if p.r.IntN(2) == 0 {
			path = preexisting[p.r.IntN(len(preexisting))]
		} else {
			path = fresh[p.r.IntN(len(fresh))]
		}
		data := p.content(path)
		if f, ok := p.md.files[path]; ok && bytes.Equal(f.data, data) {
			continue // write_file does not write identical content
		}
		id := p.e.write(run, path, string(data))
		p.md.write(id, path, data)
	}
	p.e.report(run)
	if id := run.ID(); id != "" {
		p.ids = append(p.ids, id)
	}
}

func (p *propRun) content(path string) []byte {
	cur, exists := p.md.files[path]
	switch n := p.r.IntN(20); {
	case strings.HasSuffix(path, ".bin") || strings.HasSuffix(path, ".dat"):
		if n == 0 {
			return p.text(3)
		}
		return p.binary()
	case n == 0:
		return p.binary()
	case n == 1 || strings.Contains(path, "empty") && n < 10:
		return nil
	case !exists:
		return p.text(1 + p.r.IntN(20))
	}
	return p.mutate(cur.data)
}

// tokens repeat often, so hunks have look-alike context elsewhere.
var tokens = []string{"x\n", "y\n", "{\n", "}\n", "\n", "return\n"}

func (p *propRun) line() string {
	if p.r.IntN(5) < 2 {
		return tokens[p.r.IntN(len(tokens))]
	}
	p.uniq++
	return fmt.Sprintf("u%d\n", p.uniq)
}

func (p *propRun) text(n int) []byte {
	var b strings.Builder
	for range n {
		b.WriteString(p.line())
	}
	if p.r.IntN(8) == 0 {
		return []byte(strings.TrimSuffix(b.String(), "\n"))
	}
	return []byte(b.String())
}

func (p *propRun) binary() []byte {
	b := make([]byte, 4+p.r.IntN(40))
	for i := range b {
		b[i] = byte(p.r.IntN(256))
	}
	b[p.r.IntN(len(b))] = 0
	return b
}

func (p *propRun) mutate(data []byte) []byte {
	if !textual(data) {
		return p.text(5)
	}
	lines := splitT(data)
	for range 1 + p.r.IntN(3) {
		switch p.r.IntN(5) {
		case 0, 1:
			if len(lines) > 0 {
				lines[p.r.IntN(len(lines))] = p.line()
			}
		case 2:
			at := p.r.IntN(len(lines) + 1)
			var ins []string
			for range 1 + p.r.IntN(3) {
				ins = append(ins, p.line())
			}
			lines = spliceT(lines, at, at, ins)
		case 3:
			if len(lines) > 0 {
				at := p.r.IntN(len(lines))
				lines = spliceT(lines, at, min(len(lines), at+1+p.r.IntN(2)), nil)
			}
		case 4:
			if n := len(lines); n > 0 && strings.HasSuffix(lines[n-1], "\n") {
				lines[n-1] = strings.TrimSuffix(lines[n-1], "\n")
			} else if n > 0 {
				lines[n-1] += "\n"
			}
		}
	}
	out := []byte(strings.Join(lines, ""))
	if bytes.Equal(out, data) {
		out = append(bytes.Clone(data), p.line()...)
	}
	return out
}

// randomOp keeps or undoes a random hunk, file or checkpoint.
func (p *propRun) randomOp(name string) {
	action := ActionKeep
	if p.r.IntN(3) > 0 {
		action = ActionUndo
	}
	if p.r.IntN(5) == 0 {
		p.all(p.ids[p.r.IntN(len(p.ids))], action, false, name+": "+action+" all")
		return
	}
	var cands []FileReview
	for _, id := range p.ids {
		files, err := p.e.m.Review(p.e.ctx, []string{id})
		if err != nil {
			p.t.Fatal(err)
		}
		cands = append(cands, files...)
	}
	if len(cands) == 0 {
		return
	}
	fr := cands[p.r.IntN(len(cands))]
	hunk := 0
	if !fr.Hunks[0].WholeFile && p.r.IntN(2) == 0 {
		hunk = 1 + p.r.IntN(len(fr.Hunks))
	}
	p.one(fr, hunk, action, fmt.Sprintf("%s: %s %s hunk %d", name, action, fr.Path, hunk))
}

// one applies a file or hunk operation to the package and the model and
// compares them.
func (p *propRun) one(fr FileReview, hunk int, action, when string) {
	s := p.md.snaps[mkey{fr.CheckpointID, fr.Path}]
	want := p.modelOp(fr, s, hunk, action)
	sel := Selector{Checkpoint: fr.CheckpointID, Path: fr.Path, Hunk: hunk}
	var o *Outcome
	var err error
	if action == ActionKeep {
		o, err = p.e.m.Keep(p.e.ctx, sel)
	} else {
		o, err = p.e.m.Undo(p.e.ctx, sel)
	}
	if err != nil {
		p.t.Fatalf("%s: %v", when, err)
	}
	p.compare(o, want, when)
}

// modelOp applies the operation to the model and returns the conflicting
// hunks it expects.
func (p *propRun) modelOp(fr FileReview, s *msnap, hunk int, action string) []Conflict {
	whole := fr.Hunks[0].WholeFile
	var spans []mspan
	if !whole {
		spans = spansOf(p.t, fr, s)
	}
	switch {
	case action == ActionKeep && hunk == 0:
		s.orig, s.resolved = bytes.Clone(s.written), true
	case action == ActionKeep:
		sp := spans[hunk-1]
		s.orig = []byte(strings.Join(spliceT(splitT(s.orig), sp.oldFrom, sp.oldTo, splitT(s.written)[sp.newFrom:sp.newTo]), ""))
		s.resolved = bytes.Equal(s.orig, s.written)
	case whole:
		return p.modelUndoWhole(fr, s)
	case hunk > 0:
		if !p.md.undoSpan(fr.Path, s, spans[hunk-1]) {
			return []Conflict{{Path: fr.Path, Hunk: hunk}}
		}
		s.resolved = bytes.Equal(s.orig, s.written)
		p.md.finishCreated(fr.Path, s)
	default:
		var cs []Conflict
		for i := len(spans) - 1; i >= 0; i-- {
			if !p.md.undoSpan(fr.Path, s, spans[i]) {
				cs = append([]Conflict{{Path: fr.Path, Hunk: i + 1}}, cs...)
			}
		}
		s.resolved = len(cs) == 0
		p.md.finishCreated(fr.Path, s)
		return cs
	}
	return nil
}

func (p *propRun) modelUndoWhole(fr FileReview, s *msnap) []Conflict {
	cur := p.md.files[fr.Path]
	if !fr.Binary { // an empty new file
		s.resolved = true
		if len(cur.data) == 0 {
			p.md.remove(fr.Path)
		}
		return nil
	}
	if !bytes.Equal(cur.data, s.written) {
		return []Conflict{{Path: fr.Path}}
	}
	s.resolved, s.written = true, bytes.Clone(s.orig)
	if !s.existed {
		p.md.remove(fr.Path)
		return nil
	}
	cur.data = bytes.Clone(s.orig)
	p.md.files[fr.Path] = cur
	return nil
}

// all keeps or undoes a whole checkpoint; clean demands no conflicts.
func (p *propRun) all(id, action string, clean bool, when string) {
	files, err := p.e.m.Review(p.e.ctx, []string{id})
	if err != nil {
		p.t.Fatal(err)
	}
	var want []Conflict
	for _, fr := range files {
		want = append(want, p.modelOp(fr, p.md.snaps[mkey{id, fr.Path}], 0, action)...)
	}
	// Pending files with nothing left to review resolve too.
	for k, s := range p.md.snaps {
		if k.ckpt == id && !s.resolved && bytes.Equal(s.orig, s.written) && s.existed {
			s.resolved = true
		}
	}
	var o *Outcome
	if action == ActionKeep {
		o, err = p.e.m.Keep(p.e.ctx, Selector{Checkpoint: id})
	} else {
		o, err = p.e.m.Undo(p.e.ctx, Selector{Checkpoint: id})
	}
	if err != nil {
		p.t.Fatalf("%s: %v", when, err)
	}
	if clean && len(want) > 0 {
		p.t.Fatalf("%s: the model expects conflicts %v", when, want)
	}
	p.compare(o, want, when)
}

// compare checks the outcome's conflicts, the tree and every snapshot
// against the model.
func (p *propRun) compare(o *Outcome, want []Conflict, when string) {
	p.t.Helper()
	got := o.Conflicts()
	if len(got) != len(want) {
		p.t.Fatalf("%s: conflicts %v, model expects %v", when, got, want)
	}
	for i := range got {
		if got[i].Path != want[i].Path || got[i].Hunk != want[i].Hunk {
			p.t.Fatalf("%s: conflicts %v, model expects %v", when, got, want)
		}
	}
	p.md.checkTree(p.t, p.e.root, when)
	for k, s := range p.md.snaps {
		snap := p.e.snapshot(k.ckpt, k.path)
		if (snap.Status == store.FilePending) == s.resolved {
			p.t.Fatalf("%s: %s in %s is %s, the model says resolved=%v", when, k.path, k.ckpt, snap.Status, s.resolved)
		}
		if snap.Status == store.FilePending && (!bytes.Equal(snap.OriginalContent, s.orig) || !bytes.Equal(snap.WrittenContent, s.written)) {
			p.t.Fatalf("%s: %s in %s: original %q written %q, the model has %q and %q", when, k.path, k.ckpt,
				snap.OriginalContent, snap.WrittenContent, s.orig, s.written)
		}
	}
}

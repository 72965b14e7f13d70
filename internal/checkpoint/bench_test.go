package checkpoint

import (
	"fmt"
	"strings"
	"testing"
)

// benchCheckpoint writes 200 files of 2,000 lines in one agent run, each
// with ten scattered one-line changes and a two-line insertion.
func benchCheckpoint(b *testing.B) (*env, string) {
	e := newEnv(b)
	const files, lines = 200, 2000
	run := e.begin()
	for i := range files {
		var orig, agent strings.Builder
		for l := range lines {
			line := fmt.Sprintf("file %d line %d: some ordinary source text here\n", i, l)
			orig.WriteString(line)
			switch {
			case l%200 == 17:
				agent.WriteString(fmt.Sprintf("file %d line %d: changed by the agent\n", i, l))
			case l == 1000:
				agent.WriteString(line + "inserted one\ninserted two\n")
			default:
				agent.WriteString(line)
			}
		}
		path := fmt.Sprintf("pkg%d/file%d.go", i%10, i)
		e.put(path, orig.String())
		e.write(run, path, agent.String())
	}
	e.report(run)
	return e, run.ID()
}

// BenchmarkCheckpointStats recomputes +N −N for every file of the
// checkpoint (reading snapshots and files, diffing) when nothing changed.
func BenchmarkCheckpointStats(b *testing.B) {
	e, id := benchCheckpoint(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		st, err := e.m.Stats(e.ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		if st.TotalAdditions != 200*12 || st.TotalDeletions != 200*10 {
			b.Fatalf("totals +%d −%d", st.TotalAdditions, st.TotalDeletions)
		}
	}
}

// BenchmarkCheckpointStatsStored is the same with every file's counts
// out of date, so all 200 are written back (in one transaction). SQLite
// rewrites a row in place when its size is unchanged; counts whose stored
// size changes (say 0 → 12) rewrite the row with its contents, about 300 ms
// for this checkpoint (see docs/checkpoints.md).
func BenchmarkCheckpointStatsStored(b *testing.B) {
	e, id := benchCheckpoint(b)
	snaps, err := e.st.Snapshots(e.ctx, id)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		for _, s := range snaps {
			if err := e.st.SetSnapshotStats(e.ctx, id, s.FilePath, 99, 99); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		if _, err := e.m.Stats(e.ctx, id); err != nil {
			b.Fatal(err)
		}
	}
}

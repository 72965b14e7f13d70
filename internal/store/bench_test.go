//go:build unix

package store

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// Benchmarks for the targets in docs/storage.md. Fixtures are built on
// first use in a temporary directory (not committed) and shared by the
// benchmarks of one `go test` process.

func BenchmarkAppend(b *testing.B) {
	for _, mode := range []string{"sequential", "steps-of-12", "parallel-16", "parallel-64"} {
		b.Run(mode, func(b *testing.B) {
			parallelism := 0
			fmt.Sscanf(mode, "parallel-%d", &parallelism)
			parallelism /= runtime.GOMAXPROCS(0)
			s := openTest(b)
			vocab := newVocabulary(newRand(1), 5000)
			for i := range 16 {
				newSession(b, s, fmt.Sprint("s", i))
			}
			// Events are made up front: the benchmark measures the store.
			pool := make([]EventRecord, 512)
			rng := newRand(2)
			for i := range pool {
				pool[i] = *benchEvent(rng, vocab, "")
			}
			b.ReportAllocs()
			start, cpu0 := time.Now(), cpuTime()
			switch mode {
			case "steps-of-12":
				// One appender (an agent's turn) queues the dozen durable
				// events of a step with AppendAsync and then needs them
				// durable (the agent's barrier before a tool runs: Flush,
				// which does not wait for the commit delay).
				i := 0
				for b.Loop() {
					rec := pool[i%len(pool)]
					rec.Session = "s0"
					i++
					if err := s.AppendAsync(context.Background(), &rec, func(error) {}); err != nil {
						b.Fatal(err)
					}
					if i%12 == 0 {
						if err := s.Flush(context.Background()); err != nil {
							b.Fatal(err)
						}
					}
				}
				if err := s.Flush(context.Background()); err != nil {
					b.Fatal(err)
				}
			case "sequential":
				i := 0
				for b.Loop() {
					rec := pool[i%len(pool)]
					rec.Session = "s0"
					if err := s.Append(context.Background(), &rec); err != nil {
						b.Fatal(err)
					}
					i++
				}
			default:
				b.SetParallelism(parallelism) // goroutines per CPU: sessions generating at once
				var mu sync.Mutex
				next := 0
				b.RunParallel(func(pb *testing.PB) {
					mu.Lock()
					id, i := fmt.Sprint("s", next%16), next*31
					next++
					mu.Unlock()
					for pb.Next() {
						rec := pool[i%len(pool)]
						rec.Session = id
						if err := s.Append(context.Background(), &rec); err != nil {
							b.Error(err)
							return
						}
						i++
					}
				})
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
			b.ReportMetric(float64(s.appended.Load())/float64(s.commits.Load()), "events/commit")
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Microsecond)/float64(b.N), "cpu-µs/event")
		})
	}
}

func BenchmarkOpenAndPath50k(b *testing.B) {
	for _, shape := range []string{"linear", "branched"} {
		b.Run(shape, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), FileName)
			s, err := Open(context.Background(), path, Options{})
			if err != nil {
				b.Fatal(err)
			}
			newSession(b, s, "big")
			rng, vocab := newRand(3), newVocabulary(newRand(3), 5000)
			recs := make([]*EventRecord, 50_000)
			for i := range recs {
				recs[i] = benchEvent(rng, vocab, "big")
				recs[i].Turn = i / 40
			}
			if shape == "branched" {
				// Three edits: every 12,500 events the next one starts a
				// new branch from an event 20 back.
				for i := range recs {
					recs[i].Seq, recs[i].ParentSeq = int64(i+1), int64(i)
					if i > 0 && i%12_500 == 0 {
						recs[i].ParentSeq = int64(i - 20)
					}
				}
			}
			bulkInsert(b, s, recs)
			s.Close()
			b.ReportAllocs()
			var n int
			cpu0 := cpuTime()
			for b.Loop() {
				s, err := Open(context.Background(), path, Options{})
				if err != nil {
					b.Fatal(err)
				}
				evs, err := s.Path(context.Background(), "big", 0)
				if err != nil {
					b.Fatal(err)
				}
				n = len(evs)
				s.Close()
			}
			b.ReportMetric(float64(n), "events/path")
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		})
	}
}

func BenchmarkSearchFTS200k(b *testing.B) {
	f := buildSearchFixture(b)
	s, err := Open(context.Background(), f.path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	cases := map[string][]string{
		"distinctive": benchQueries(f, 100),
		"common-word": {f.vocab.words[2], f.vocab.words[5] + " " + f.vocab.words[9]},
	}
	for name, qs := range cases {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var ds []time.Duration
			i := 0
			for b.Loop() {
				t := time.Now()
				res, err := s.Search(context.Background(), SearchQuery{Text: qs[i%len(qs)]})
				if err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(t))
				if i == 0 && len(res.Sessions) == 0 {
					b.Fatalf("query %q found nothing", qs[0])
				}
				i++
			}
			reportLatency(b, ds)
		})
	}
}

func BenchmarkSearchHybrid100kVectors(b *testing.B) {
	f := buildSearchFixture(b)
	s, err := Open(context.Background(), f.path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	qs := benchQueries(f, 100)
	rng := newRand(6)
	emb := &Embedder{Model: benchEmbedModel, Embed: func(_ context.Context, texts []string) ([][]float32, error) {
		return [][]float32{randomVector(rng, 768)}, nil
	}}
	b.ReportAllocs()
	var ds []time.Duration
	i := 0
	for b.Loop() {
		t := time.Now()
		res, err := s.Search(context.Background(), SearchQuery{Text: qs[i%len(qs)], Embedder: emb})
		if err != nil {
			b.Fatal(err)
		}
		if res.WordsOnly {
			b.Fatalf("hybrid search fell back to words: %s", res.Notice)
		}
		ds = append(ds, time.Since(t))
		i++
	}
	reportLatency(b, ds)
}

// BenchmarkDatabaseSize reports the bytes a realistic event mix takes, and
// a 768-dimension vector.
func BenchmarkDatabaseSize(b *testing.B) {
	for b.Loop() {
		s := openTest(b)
		newSession(b, s, "a")
		rng, vocab := newRand(7), newVocabulary(newRand(7), 5000)
		before := dbBytes(b, s)
		var recs []*EventRecord
		for range 10_000 {
			recs = append(recs, benchEvent(rng, vocab, "a"))
		}
		bulkInsert(b, s, recs)
		afterEvents := dbBytes(b, s)
		var items []vectorItem
		for id := int64(1); id <= 2000; id++ {
			items = append(items, vectorItem{eventID: id, vec: randomVector(rng, 768)})
		}
		if err := s.storeVectors(context.Background(), "m", items, 2000); err != nil {
			b.Fatal(err)
		}
		afterVectors := dbBytes(b, s)
		b.ReportMetric(float64(afterEvents-before)/10, "bytes/1000events")
		b.ReportMetric(float64(afterVectors-afterEvents)/2000, "bytes/vector768")
	}
}

// dbBytes checkpoints the WAL and returns the database's size.
func dbBytes(b *testing.B, s *Store) int64 {
	if _, err := s.w.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		b.Fatal(err)
	}
	var pages, size int64
	if err := s.w.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		b.Fatal(err)
	}
	s.w.QueryRow("PRAGMA page_size").Scan(&size)
	return pages * size
}

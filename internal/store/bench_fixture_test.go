//go:build unix

package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Fixtures and measuring helpers for bench_test.go.

// benchEvent returns the i-th event of a realistic mix: half tool actions
// (JSON, not searchable), a third assistant text, a sixth user messages.
func benchEvent(rng *rand.Rand, vocab *vocabulary, session string) *EventRecord {
	switch n := rng.IntN(6); {
	case n < 3:
		p, _ := json.Marshal(map[string]any{"status": "success", "icon": "file", "text": "Read internal/store/store.go",
			"detail": "lines 1-200", "groupId": fmt.Sprintf("g%d", rng.IntN(1000))})
		return &EventRecord{Session: session, Type: "tool_action", Payload: p}
	case n < 5:
		text := vocab.sentence(rng, 80+rng.IntN(60))
		p, _ := json.Marshal(map[string]string{"text": text})
		return &EventRecord{Session: session, Type: "assistant_text", Payload: p, Text: text}
	default:
		text := vocab.sentence(rng, 15+rng.IntN(20))
		p, _ := json.Marshal(map[string]string{"text": text})
		return &EventRecord{Session: session, Type: "user_message", Payload: p, Text: text}
	}
}

// vocabulary draws words with a Zipf distribution, like natural text.
type vocabulary struct {
	words []string
}

func newVocabulary(rng *rand.Rand, n int) *vocabulary {
	common := strings.Fields(`the a to of and in is it that for this on with be as you function file
		error test code return value type we not can use if should when change from by an are or will`)
	v := &vocabulary{words: common}
	seen := map[string]bool{}
	for _, w := range common {
		seen[w] = true
	}
	for len(v.words) < n {
		b := make([]byte, 3+rng.IntN(8))
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		if w := string(b); !seen[w] {
			seen[w] = true
			v.words = append(v.words, w)
		}
	}
	return v
}

func (v *vocabulary) sentence(rng *rand.Rand, n int) string {
	z := rand.NewZipf(rng, 1.07, 2, uint64(len(v.words)-1))
	words := make([]string, n)
	for i := range words {
		words[i] = v.words[z.Uint64()]
	}
	return strings.Join(words, " ")
}

// searchFixture is a database of 200,000 searchable messages in 2,000
// sessions, of which the first 100,000 have 768-dimension vectors.
type searchFixture struct {
	path  string
	vocab *vocabulary
}

var (
	searchOnce sync.Once
	searchFix  *searchFixture
	searchErr  error
)

const benchEmbedModel = "bench-embed"

func buildSearchFixture(b *testing.B) *searchFixture {
	searchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "olly-store-bench-")
		if err != nil {
			searchErr = err
			return
		}
		benchCleanup = append(benchCleanup, func() { os.RemoveAll(dir) })
		start := time.Now()
		path := filepath.Join(dir, FileName)
		s, err := Open(context.Background(), path, Options{})
		if err != nil {
			searchErr = err
			return
		}
		defer s.Close()
		rng, vocab := newRand(4), newVocabulary(newRand(4), 20_000)
		const sessions, perSession = 2000, 100
		var recs []*EventRecord
		for i := range sessions {
			id := fmt.Sprintf("s%04d", i)
			if err := s.CreateSession(context.Background(), &Session{ID: id, Workspace: fmt.Sprintf("/w%d", i%10),
				Title: vocab.sentence(rng, 4)}); err != nil {
				searchErr = err
				return
			}
			for range perSession {
				text := vocab.sentence(rng, 20+rng.IntN(60))
				p, _ := json.Marshal(map[string]string{"text": text})
				recs = append(recs, &EventRecord{Session: id, Type: "assistant_text", Payload: p, Text: text})
			}
		}
		bulkInsert(b, s, recs)
		b.Logf("fixture: 200,000 messages in %v", time.Since(start))
		var items []vectorItem
		for id := int64(1); id <= 100_000; id++ {
			items = append(items, vectorItem{eventID: id, vec: randomVector(rng, 768)})
			if len(items) == 2000 {
				if err := s.storeVectors(context.Background(), benchEmbedModel, items, id); err != nil {
					searchErr = err
					return
				}
				items = items[:0]
			}
		}
		b.Logf("fixture: + 100,000 vectors in %v", time.Since(start))
		searchFix = &searchFixture{path: path, vocab: vocab}
	})
	if searchErr != nil {
		b.Fatal(searchErr)
	}
	return searchFix
}

func randomVector(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

// benchQueries are 1–2 words drawn from ranks 20–5,000 of the vocabulary:
// distinctive words, as people search.
func benchQueries(f *searchFixture, n int) []string {
	rng := newRand(5)
	qs := make([]string, n)
	for i := range qs {
		words := []string{f.vocab.words[20+rng.IntN(4980)]}
		if rng.IntN(2) == 0 {
			words = append(words, f.vocab.words[20+rng.IntN(480)])
		}
		qs[i] = strings.Join(words, " ")
	}
	return qs
}

// cpuTime returns the CPU time this process has used (user + system):
// a measure that other load on the machine does not inflate as much as
// wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportLatency reports p50 and p95 of ds in milliseconds.
func reportLatency(b *testing.B, ds []time.Duration) {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	pct := func(p float64) float64 { return float64(ds[int(p*float64(len(ds)-1))].Microseconds()) / 1000 }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.95), "p95-ms")
}

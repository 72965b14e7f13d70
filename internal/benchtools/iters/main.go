// Command iters reads the output folders of the scripted peer run
// (../shared/bench/peers/run.sh, OUTDIR) and prints, over all the measured
// runs of the agent named by -agent, the per-iteration figures the bench's
// summary gives only as medians: each run's iteration median and slowest
// iteration (request to request, from fakellm's stats), the slowest's
// excess over the median, and how many runs have an iteration over twice
// their median. Comparing olly's folders with those of the floor control
// (internal/benchtools/floor) separates what olly adds from what any
// client gets on the machine (docs/performance.md).
//
//	go run ./internal/benchtools/iters -name "olly 20 steps" /tmp/peers-bench/A /tmp/peers-bench/B
//
// It is a measuring tool, not part of olly.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

func main() {
	agent := flag.String("agent", "olly", "the adapter name whose runs to read (OUTDIR/AGENT/run-K)")
	name := flag.String("name", "", "a label for the output line")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: iters [-agent olly] [-name LABEL] OUTDIR...")
		os.Exit(2)
	}
	var runs []run
	for _, dir := range flag.Args() {
		rs, err := readRuns(dir, *agent)
		if err != nil {
			fmt.Fprintln(os.Stderr, "iters:", err)
			os.Exit(1)
		}
		runs = append(runs, rs...)
	}
	if len(runs) == 0 {
		fmt.Fprintln(os.Stderr, "iters: no complete measured run in", flag.Args())
		os.Exit(1)
	}
	report(os.Stdout, *name, runs)
}

// run is one measured run's iteration times, in ms.
type run struct {
	iters []float64
}

func (r run) median() float64 { return median(r.iters) }

func (r run) slowest() (int, float64) {
	i := 0
	for k, v := range r.iters {
		if v > r.iters[i] {
			i = k
		}
	}
	return i + 1, r.iters[i]
}

// readRuns reads OUTDIR/AGENT/run-*/.stats.json (warm-up runs are not
// measured runs). A run whose stats lack a request time (it failed) is
// skipped.
func readRuns(dir, agent string) ([]run, error) {
	paths, err := filepath.Glob(filepath.Join(dir, agent, "run-*", ".stats.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []run
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		it, err := iterations(b)
		if err != nil {
			fmt.Fprintf(os.Stderr, "iters: %s: %v (skipped)\n", p, err)
			continue
		}
		out = append(out, run{iters: it})
	}
	return out, nil
}

// iterations turns fakellm's stats into iteration times: tool step k's
// request to step k+1's, the last one to the final answer's request.
func iterations(stats []byte) ([]float64, error) {
	var s struct {
		StepNs  []int64 `json:"step_ns"`
		FinalNs int64   `json:"final_ns"`
	}
	if err := json.Unmarshal(stats, &s); err != nil {
		return nil, err
	}
	p := append(slices.Clone(s.StepNs), s.FinalNs)
	if len(p) < 2 {
		return nil, errors.New("no tool step")
	}
	out := make([]float64, 0, len(p)-1)
	for i := 1; i < len(p); i++ {
		if p[i-1] <= 0 || p[i] < p[i-1] {
			return nil, errors.New("a step's request time is missing")
		}
		out = append(out, float64(p[i]-p[i-1])/1e6)
	}
	return out, nil
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func report(w io.Writer, name string, runs []run) {
	var meds, excess, ratios []float64
	over, firstSlowest := 0, 0
	for _, r := range runs {
		m := r.median()
		k, mx := r.slowest()
		meds, excess, ratios = append(meds, m), append(excess, mx-m), append(ratios, mx/m)
		if mx > 2*m {
			over++
		}
		if k == 1 {
			firstSlowest++
		}
	}
	span := func(v []float64) string {
		return fmt.Sprintf("%.2f (%.2f–%.2f)", median(v), slices.Min(v), slices.Max(v))
	}
	if name != "" {
		fmt.Fprintf(w, "%s: ", name)
	}
	fmt.Fprintf(w, "%d runs | iteration median ms %s | slowest − median ms %s | slowest ÷ median %s | runs with an iteration over 2× their median: %d of %d | slowest is iteration 1 in %d\n",
		len(runs), span(meds), span(excess), span(ratios), over, len(runs), firstSlowest)
}

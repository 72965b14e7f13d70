// Command treecpu runs a command and measures the CPU its whole process
// tree spends between two moments of a scripted peer run, to the
// microsecond instead of the 10 ms clock ticks the peer bench samples.
//
//	go run ./internal/benchtools/treecpu -fake http://127.0.0.1:PORT -- olly -p ...
//
// While the command runs it polls, every -every (2 ms), the scheduler's
// own run time (/proc/PID/task/TID/schedstat, nanoseconds) of every
// thread of every process in the tree, and each process's reaped
// children (cutime+cstime, clock ticks: nothing in a tool loop's window
// exits, so their coarseness does not reach the figure). New processes are
// found by a scan of /proc every -scan (20 ms). After the command exits it
// asks the scripted model server (the peer bench's fakellm) for its
// request times and prints, as the bench defines its "loop CPU" column,
// the tree's CPU between the request that got tool call 1 and the final
// answer's request divided by the steps, split by process name, with the
// iteration wall times.
//
// It is a measuring tool for docs/performance.md, not part of olly.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	fake := flag.String("fake", "", "base URL of the scripted model server (fakellm); empty: print the samples only")
	every := flag.Duration("every", 2*time.Millisecond, "poll interval of the tree's run times")
	scan := flag.Duration("scan", 20*time.Millisecond, "interval of the scan of /proc for new processes")
	out := flag.String("samples", "", "write every sample (unix ns, tree CPU ns) to this file")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: treecpu [-fake URL] [-every 2ms] -- command [args...]")
		os.Exit(2)
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "treecpu:", err)
		os.Exit(1)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tr := newTree(cmd.Process.Pid)
	var samples []sample
	tick := time.NewTicker(*every)
	defer tick.Stop()
	lastScan := time.Time{}
	var werr error
loop:
	for {
		select {
		case werr = <-done:
			break loop
		case <-tick.C:
			if time.Since(lastScan) >= *scan {
				tr.scan()
				lastScan = time.Now()
			}
			samples = append(samples, tr.sample())
		}
	}
	// The closing point: the command's own and its reaped children's CPU,
	// as wait4 reports it (exact, like GNU time's).
	if ps := cmd.ProcessState; ps != nil {
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			total := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			samples = append(samples, sample{at: time.Now(), cpu: total, byName: map[string]time.Duration{}})
		}
	}
	if os.Getenv("TREECPU_DEBUG") != "" {
		for pid, p := range tr.procs {
			var sum time.Duration
			for _, v := range p.threads {
				sum += v
			}
			fmt.Fprintf(os.Stderr, "treecpu: pid %d %s gone=%v threads=%d cpu=%v reaped=%v\n", pid, p.name, p.gone, len(p.threads), sum, p.reaped)
		}
	}
	if *out != "" {
		var b strings.Builder
		for _, s := range samples {
			fmt.Fprintf(&b, "%d %d", s.at.UnixNano(), s.cpu.Nanoseconds())
			for _, k := range sortedNames(samples) {
				fmt.Fprintf(&b, " %s=%d", k, s.byName[k].Nanoseconds())
			}
			b.WriteByte('\n')
		}
		if err := os.WriteFile(*out, []byte(b.String()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "treecpu:", err)
		}
	}
	if *fake != "" {
		if err := report(*fake, samples); err != nil {
			fmt.Fprintln(os.Stderr, "treecpu:", err)
		}
	}
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		os.Exit(ee.ExitCode())
	}
}

type sample struct {
	at     time.Time
	cpu    time.Duration
	byName map[string]time.Duration
}

// tree is the command's process tree: every process seen under root,
// with the largest run time each of its threads was seen with (a thread
// that exits keeps its last value) and its reaped children's ticks. A
// process that has gone no longer counts; its parent's reaped children
// count it once the parent has waited for it.
type tree struct {
	root  int
	procs map[int]*proc
	tick  time.Duration
}

type proc struct {
	name    string
	threads map[int]time.Duration
	reaped  time.Duration
	gone    bool
}

func newTree(root int) *tree {
	t := &tree{root: root, procs: map[int]*proc{}, tick: time.Second / 100}
	t.scan()
	return t
}

// scan adds the processes whose parent chain reaches root.
func (t *tree) scan() {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	parent := map[int]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := t.procs[pid]; ok {
			p.name = "" // re-read: a forked child's name changes when it executes
			continue
		}
		st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := statFields(string(st))
		if len(f) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		parent[pid] = pp
	}
	for pid := range parent {
		x, n := pid, 0
		for x != t.root && n < 64 {
			if _, ok := t.procs[x]; ok {
				break
			}
			p, ok := parent[x]
			if !ok {
				break
			}
			x, n = p, n+1
		}
		if x == t.root || t.procs[x] != nil || pid == t.root {
			t.procs[pid] = &proc{threads: map[int]time.Duration{}}
		}
	}
	if t.procs[t.root] == nil {
		t.procs[t.root] = &proc{threads: map[int]time.Duration{}}
	}
}

// statFields returns /proc/PID/stat's fields after the command name
// (state first), the name being the part in parentheses.
func statFields(s string) []string {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}

func (t *tree) sample() sample {
	s := sample{at: time.Now(), byName: map[string]time.Duration{}}
	for pid, p := range t.procs {
		if !p.gone {
			t.read(pid, p)
		}
		if p.gone {
			// Its CPU moves to its parent's reaped children once the parent
			// waits for it: counting both would count it twice.
			continue
		}
		var sum time.Duration
		for _, v := range p.threads {
			sum += v
		}
		sum += p.reaped
		s.cpu += sum
		s.byName[p.name] += sum
	}
	return s
}

func (t *tree) read(pid int, p *proc) {
	dir := "/proc/" + strconv.Itoa(pid)
	if p.name == "" {
		if b, err := os.ReadFile(dir + "/comm"); err == nil {
			p.name = strings.TrimSpace(string(b))
		}
	}
	tasks, err := os.ReadDir(dir + "/task")
	if err != nil {
		p.gone = true
		return
	}
	for _, e := range tasks {
		b, err := os.ReadFile(dir + "/task/" + e.Name() + "/schedstat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			continue
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			continue
		}
		tid, _ := strconv.Atoi(e.Name())
		if d := time.Duration(ns); d > p.threads[tid] {
			p.threads[tid] = d
		}
	}
	if b, err := os.ReadFile(dir + "/stat"); err == nil {
		f := statFields(string(b))
		if len(f) > 14 {
			cu, _ := strconv.ParseInt(f[13], 10, 64)
			cs, _ := strconv.ParseInt(f[14], 10, 64)
			if d := time.Duration(cu+cs) * t.tick; d > p.reaped {
				p.reaped = d
			}
		}
	}
}

// stats is what fakellm's /_fakellm/stats reports of a run.
type stats struct {
	Step1  int64   `json:"step1_ns"`
	Final  int64   `json:"final_ns"`
	StepNs []int64 `json:"step_ns"`
}

func report(base string, samples []sample) error {
	resp, err := http.Get(strings.TrimRight(base, "/") + "/_fakellm/stats")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var st stats
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return fmt.Errorf("fakellm stats: %w", err)
	}
	n := len(st.StepNs)
	if n == 0 || st.Step1 <= 0 || st.Final <= st.Step1 {
		return fmt.Errorf("fakellm stats: no complete tool loop (steps %d)", n)
	}
	t1, t2 := time.Unix(0, st.Step1), time.Unix(0, st.Final)
	a, aok := at(samples, t1, func(s sample) time.Duration { return s.cpu })
	b, bok := at(samples, t2, func(s sample) time.Duration { return s.cpu })
	if !aok || !bok {
		return errors.New("the samples do not cover the tool loop")
	}
	fmt.Fprintf(os.Stderr, "treecpu: steps %d loop CPU/step %.3f ms", n, float64(b-a)/1e6/float64(n))
	for _, k := range sortedNames(samples) {
		get := func(s sample) time.Duration { return s.byName[k] }
		x, ok1 := at(samples[:len(samples)-1], t1, get)
		y, ok2 := at(samples[:len(samples)-1], t2, get)
		if ok1 && ok2 {
			fmt.Fprintf(os.Stderr, " %s %.3f", k, float64(y-x)/1e6/float64(n))
		}
	}
	its := append(append([]int64{}, st.StepNs...), st.Final)
	var w []float64
	for i := 1; i < len(its); i++ {
		w = append(w, float64(its[i]-its[i-1])/1e6)
	}
	sort.Float64s(w)
	fmt.Fprintf(os.Stderr, " | wall/step %.2f ms, iteration median %.2f max %.2f (x%.2f)\n",
		float64(t2.Sub(t1))/1e6/float64(n), median(w), w[len(w)-1], w[len(w)-1]/median(w))
	return nil
}

// sortedNames returns the process names the samples hold.
func sortedNames(samples []sample) []string {
	names := map[string]bool{}
	for _, s := range samples {
		for k := range s.byName {
			names[k] = true
		}
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// at interpolates the value f at t between the samples around it.
func at(samples []sample, t time.Time, f func(sample) time.Duration) (time.Duration, bool) {
	for i := 1; i < len(samples); i++ {
		if !samples[i].at.Before(t) {
			p, q := samples[i-1], samples[i]
			if t.Before(p.at) {
				return 0, false
			}
			span := q.at.Sub(p.at)
			if span <= 0 {
				return f(q), true
			}
			frac := float64(t.Sub(p.at)) / float64(span)
			return f(p) + time.Duration(frac*float64(f(q)-f(p))), true
		}
	}
	return 0, false
}

func median(x []float64) float64 {
	if len(x)%2 == 1 {
		return x[len(x)/2]
	}
	return (x[len(x)/2-1] + x[len(x)/2]) / 2
}

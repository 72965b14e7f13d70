package toolcall

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// testKnown is the tool set the tests use: the seed's tools.
var testKnown = map[string]bool{
	"read_file": true, "write_file": true, "list_files": true, "find_files": true,
	"search_workspace": true, "run_terminal_command": true, "get_diagnostics": true,
	"run_subagent": true,
}

var knownOpts = Options{Known: testKnown}

// want is the expected shape of one call.
type want struct {
	format   Format
	name     string
	args     string // JSON, compared semantically; "" means nil Arguments
	repaired bool
	problem  bool // a Problem is expected
	id       string
}

// checkCalls compares calls with the expectations, in order.
func checkCalls(t *testing.T, in string, got []Call, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		t.Fatalf("got %d calls, want %d\ninput: %q\ncalls: %s", len(got), len(wants), in, dumpCalls(got))
	}
	for i, w := range wants {
		c := got[i]
		if c.Format != w.format || c.Name != w.name || c.Repaired != w.repaired || (c.Problem != "") != w.problem || c.ID != w.id {
			t.Errorf("call %d = %s\nwant format=%s name=%q repaired=%v problem=%v id=%q\ninput: %q",
				i, dumpCalls(got[i:i+1]), w.format, w.name, w.repaired, w.problem, w.id, in)
		}
		if c.Index != i {
			t.Errorf("call %d has Index %d", i, c.Index)
		}
		if !sameJSON(t, c.Arguments, w.args) {
			t.Errorf("call %d arguments = %s, want %s\ninput: %q", i, c.Arguments, w.args, in)
		}
	}
}

// sameJSON reports whether got is the JSON want (semantically), or both are
// absent.
func sameJSON(t *testing.T, got json.RawMessage, want string) bool {
	t.Helper()
	if want == "" || got == nil {
		return want == "" && got == nil
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Errorf("arguments %s are not valid JSON: %v", got, err)
		return false
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad expectation %s: %v", want, err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	return bytes.Equal(gb, wb)
}

func dumpCalls(calls []Call) string {
	var b strings.Builder
	for _, c := range calls {
		b.WriteString("\n  ")
		j, _ := json.Marshal(c)
		b.Write(j)
	}
	return b.String()
}

// stream feeds text to a Filter in chunks of the given sizes (cycled) and
// returns everything it displayed and the calls it found.
func stream(text string, opts Options, sizes []int) (visible string, calls []Call, f *Filter) {
	f = NewFilter(opts)
	var b strings.Builder
	for i, k := 0, 0; i < len(text); k++ {
		n := min(sizes[k%len(sizes)], len(text)-i)
		b.WriteString(f.Write(text[i : i+n]))
		i += n
	}
	b.WriteString(f.Flush())
	return b.String(), f.Calls(), f
}

// randomSizes returns chunk sizes from 1 to max, drawn from seed.
func randomSizes(seed uint64, n, maxSize int) []int {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([]int, n)
	for i := range out {
		out[i] = 1 + r.IntN(maxSize)
	}
	return out
}

// checkStreaming asserts that streaming text in several chunkings gives
// exactly Strip and Extract.
func checkStreaming(t *testing.T, text string, opts Options) {
	t.Helper()
	wantVisible := Strip(text, opts)
	wantCalls := Extract(text, opts)
	chunkings := [][]int{{1}, {2}, {3}, {5}, {7, 1, 13}, {64}, randomSizes(uint64(len(text)), 50, 20)}
	for _, sizes := range chunkings {
		vis, calls, _ := stream(text, opts, sizes)
		if vis != wantVisible {
			t.Fatalf("chunks %v: visible text differs from Strip\ninput:  %q\nstream: %q\nstrip:  %q", sizes, text, vis, wantVisible)
		}
		if g, w := dumpCalls(calls), dumpCalls(wantCalls); g != w {
			t.Fatalf("chunks %v: calls differ from Extract\ninput: %q\nstream:%s\nextract:%s", sizes, text, g, w)
		}
	}
}

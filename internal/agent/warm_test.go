package agent

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/olly-agent/olly/event"
)

// warmChildEnv makes the test binary report, from a fresh process (json's
// encoder cache is per process), which types a turn's first iteration
// encodes would still build their encoder on first use.
const warmChildEnv = "OLLY_AGENT_WARM_CHILD"

func TestWarmUpBuildsTheFirstIterationsEncoders(t *testing.T) {
	if mode := os.Getenv(warmChildEnv); mode != "" {
		if mode == "warm" {
			wait := warmUp()
			wait()
			warmUp()() // a later turn's does not wait for anything
		}
		fmt.Printf("cold: %s\n", strings.Join(coldEncoders(), " "))
		return
	}
	run := func(mode string) string {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWarmUpBuildsTheFirstIterationsEncoders$", "-test.count=1")
		cmd.Env = append(os.Environ(), warmChildEnv+"="+mode)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child (%s): %v\n%s", mode, err, out)
		}
		for l := range strings.Lines(string(out)) {
			if rest, ok := strings.CutPrefix(l, "cold: "); ok {
				return strings.TrimSpace(rest)
			}
		}
		t.Fatalf("child (%s) reported nothing:\n%s", mode, out)
		return ""
	}
	if cold := run("cold"); !strings.Contains(cold, "controlFull") || !strings.Contains(cold, string(event.TypeToolResult)) {
		t.Errorf("without the warm-up the first encodes did not build encoders (cold: %q): the check cannot tell", cold)
	}
	if cold := run("warm"); cold != "" {
		t.Errorf("after the warm-up these still build their encoder on first use: %s", cold)
	}
}

// coldEncoders lists the values whose first json.Marshal allocated clearly
// more than their second: json built their encoder then (at least ~20
// allocations; -race's sync.Pool drops add a few to any call).
func coldEncoders() []string {
	vals := map[string]any{"controlMinimal": controlMinimal{}, "controlStandard": controlStandard{}, "controlFull": controlFull{}}
	for _, typ := range event.Types() {
		p, err := event.DecodePayload(typ, nil)
		if err != nil {
			panic(err)
		}
		vals[string(typ)] = p
	}
	var m runtime.MemStats
	mallocs := func(v any) uint64 {
		runtime.ReadMemStats(&m)
		before := m.Mallocs
		_, _ = json.Marshal(v)
		runtime.ReadMemStats(&m)
		return m.Mallocs - before
	}
	var cold []string
	for name, v := range vals {
		if first, second := mallocs(v), mallocs(v); first > second+buildAllocs {
			cold = append(cold, name)
		}
	}
	return cold
}

// buildAllocs is the margin over a warm marshal's allocations that counts
// as building an encoder.
const buildAllocs = 10

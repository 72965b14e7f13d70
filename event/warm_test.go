package event

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// warmChildEnv makes the test binary measure, in a fresh process (json's
// encoder cache is per process), which payload types still build their
// encoder on their first json.Marshal.
const warmChildEnv = "OLLY_EVENT_WARM_CHILD"

func TestWarmEncodersBuildsEveryEncoder(t *testing.T) {
	if mode := os.Getenv(warmChildEnv); mode != "" {
		if mode == "warm" {
			WarmEncoders()
		}
		fmt.Printf("cold: %s\n", strings.Join(coldTypes(), " "))
		return
	}
	run := func(mode string) string {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWarmEncodersBuildsEveryEncoder$", "-test.count=1")
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
	// Without the warm-up the check sees the cost (so it can fail)...
	if cold := run("cold"); !strings.Contains(cold, string(TypeAssistantMessage)) {
		t.Errorf("without WarmEncoders, %s did not build an encoder on first use (cold: %q): the check cannot tell", TypeAssistantMessage, cold)
	}
	// ...and with it no type pays it.
	if cold := run("warm"); cold != "" {
		t.Errorf("after WarmEncoders these types still build their encoder on first use: %s", cold)
	}
}

// coldTypes marshals a zero payload of every type twice and lists those
// whose first marshal allocated clearly more than the second: json built
// their encoder then (at least ~20 allocations; -race's sync.Pool drops add
// a few to any call).
func coldTypes() []string {
	var cold []string
	var m runtime.MemStats
	mallocs := func(p Payload) uint64 {
		runtime.ReadMemStats(&m)
		before := m.Mallocs
		_, _ = json.Marshal(p)
		runtime.ReadMemStats(&m)
		return m.Mallocs - before
	}
	for _, typ := range Types() {
		p, err := DecodePayload(typ, nil)
		if err != nil {
			panic(err)
		}
		if first, second := mallocs(p), mallocs(p); first > second+buildAllocs {
			cold = append(cold, string(typ))
		}
	}
	return cold
}

// buildAllocs is the margin over a warm marshal's allocations that counts
// as building an encoder.
const buildAllocs = 10

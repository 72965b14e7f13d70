package rpcclient

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/olly-agent/olly/internal/llm/llmtest"
)

// piPackage finds pi's npm package (@mariozechner/pi-coding-agent), or
// skips: OLLY_TEST_PI_PACKAGE, testdata/piclient/node_modules (npm ci
// there), or the cache folder .ci/run fills, named by the lock file's hash.
func piPackage(t *testing.T) (node, dir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed (apt-get install nodejs npm): the test with pi's RpcClient needs it")
	}
	const rel = "node_modules/@mariozechner/pi-coding-agent"
	candidates := []string{os.Getenv("OLLY_TEST_PI_PACKAGE"), filepath.Join("testdata", "piclient", rel)}
	if lock, err := os.ReadFile(filepath.Join("testdata", "piclient", "package-lock.json")); err == nil {
		sum := sha256.Sum256(lock)
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache")
		}
		candidates = append(candidates, filepath.Join(cache, "olly-ci", "pi-client-"+hex.EncodeToString(sum[:])[:16], rel))
	}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(c, "dist", "modes", "rpc", "rpc-client.js")); err == nil {
			abs, err := filepath.Abs(c)
			if err != nil {
				t.Fatal(err)
			}
			return node, abs
		}
	}
	t.Skipf("pi's npm package is not installed: run .ci/run, or npm ci in rpcclient/testdata/piclient (or set OLLY_TEST_PI_PACKAGE to its node_modules/@mariozechner/pi-coding-agent); looked in %q", candidates)
	return "", ""
}

// pi's own RpcClient drives olly --mode rpc through the commands pi's
// clients send: fork, get_fork_messages, queue and interrupt modes,
// thinking levels, set_auto_retry, abort_retry, cycle_model and
// abort_and_prompt.
func TestPiRpcClient(t *testing.T) {
	node, pkg := piPackage(t)
	e := newEnv(t)
	e.srv.AddModel("gpt-oss:20b", llmtest.Caps("completion", "tools", "thinking"), llmtest.Family("gptoss"), llmtest.ContextLength(32768))
	e.reply(llmtest.Reply(llmtest.Text("One. [TASK_COMPLETE]")), llmtest.Reply(llmtest.Text("Two. [TASK_COMPLETE]")),
		llmtest.Reply(llmtest.Text("Three. [TASK_COMPLETE]")))
	args, _ := json.Marshal([]string{"--cwd", e.ws, "--base-url", e.srv.URL(), "--model", testModel, "--set", "embedding.model=",
		"--set", "agent.sessionTitleGeneration=firstMessage"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "piclient", "drive.mjs"))
	cmd.Env = append(append([]string{"PI_TEST_DEBUG=" + os.Getenv("PI_TEST_DEBUG")}, e.environ...), "PI_PACKAGE_DIR="+pkg, "PI_TEST_OLLY_BIN="+ollyBin, "PI_TEST_OLLY_ARGS="+string(args), "PI_TEST_OLLY_CWD="+e.ws)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("the pi client failed: %v\nstderr:\n%s", err, stderr.String())
	}
	var got struct {
		StateBefore, StateModes, StateAfter struct {
			ThinkingLevel, SteeringMode, FollowUpMode, InterruptMode string
			Model                                                    struct{ ID string }
		}
		Forkable, AfterFork []string
		Fork                struct {
			Text      string
			Cancelled bool
		}
		CycledModel struct {
			Model         struct{ ID string }
			ThinkingLevel string
		}
		Thinking          []struct{ Level string }
		LastText          string
		AutoRetryCommands bool
		Events            map[string]int
	}
	if err := json.Unmarshal(stdout, &got); err != nil {
		t.Fatalf("%v: %s\nstderr:\n%s", err, stdout, stderr.String())
	}
	check := func(what string, ok bool) {
		t.Helper()
		if !ok {
			t.Errorf("%s; the client saw %s", what, stdout)
		}
	}
	// agent.enableThinking is on by default: medium until a level is set.
	check("state before", got.StateBefore.ThinkingLevel == "medium" && got.StateBefore.SteeringMode == "all" && got.StateBefore.FollowUpMode == "one-at-a-time" && got.StateBefore.InterruptMode == "wait")
	check("fork", len(got.Forkable) == 2 && got.Fork.Text == "second prompt" && !got.Fork.Cancelled && len(got.AfterFork) == 1 && got.AfterFork[0] == "first prompt")
	check("modes", got.StateModes.ThinkingLevel == "high" && got.StateModes.SteeringMode == "one-at-a-time" && got.StateModes.FollowUpMode == "all" && got.StateModes.InterruptMode == "immediate")
	check("set_auto_retry and abort_retry", got.AutoRetryCommands)
	check("cycle_model", got.CycledModel.Model.ID == "gpt-oss:20b" && got.CycledModel.ThinkingLevel == "high")
	check("cycle_thinking_level", len(got.Thinking) == 2 && got.Thinking[0].Level == "off" && got.Thinking[1].Level == "low")
	check("abort_and_prompt", got.LastText == "Three." && got.StateAfter.Model.ID == "gpt-oss:20b" && got.StateAfter.ThinkingLevel == "low")
	check("pi events", got.Events["agent_start"] == 3 && got.Events["agent_end"] == 3)
	// The thinking level reached the server as Ollama's think level.
	reqs := e.turnRequests()
	if len(reqs) != 3 || reqs[2].Model != "gpt-oss:20b" || string(reqs[2].Fields["think"]) != `"low"` {
		for _, r := range reqs {
			t.Logf("request: model %s think %s", r.Model, r.Fields["think"])
		}
		t.Errorf("%d turn requests; the last should go to gpt-oss:20b with think \"low\"", len(reqs))
	}
}

// Command floor is a control for the scripted peer run
// (../shared/bench/peers): the least a coding agent can do per tool step
// against the scripted model server (fakellm) in Ollama's dialect. It
// sends the same request bodies as olly — olly's own first request,
// captured by fakellm (FAKELLM_DUMP_DIR), then per step the three messages
// olly appends (the assistant's tool call, the tool's result, the control
// message) — runs each command in one long-lived bash, and does nothing
// else: no store, no analysis, no sandbox, no checkpoints. Its iteration
// times are what the machine, the fake server and bash give any client,
// so an olly figure can be read against them (docs/performance.md).
//
// The peer harness runs it in olly's place through a wrapper:
//
//	printf '#!/bin/sh\nexec /tmp/floor -base /tmp/dump "$@"\n' >/tmp/floor.sh; chmod +x /tmp/floor.sh
//	OLLY_BIN=/tmp/floor.sh AGENTS=olly STEPS=20 RUNS=6 ../shared/bench/peers/run.sh
//
// It takes olly's command line as the harness gives it (`config ...` and
// `--version` do nothing; `-p PROMPT ...` runs the loop) and the server
// from OLLAMA_HOST, as olly does. It is a measuring tool, not part of olly.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

func main() {
	fs := flag.NewFlagSet("floor", flag.ContinueOnError)
	base := fs.String("base", "", "olly's first request with tools: a file, or fakellm's dump folder (FAKELLM_DUMP_DIR) to take it from")
	procs := fs.Int("procs", 1, "GOMAXPROCS (olly runs its loop on one P: internal/procs)")
	maxSteps := fs.Int("max-steps", 10000, "stop after this many tool steps")
	_ = fs.String("p", "", "the prompt (ignored: the base request holds olly's)")
	_ = fs.Bool("yes", false, "ignored (olly's flag)")
	_ = fs.String("model", "", "ignored (the base request names the model)")
	_ = fs.String("max-iterations", "", "ignored (olly's flag)")
	version := fs.Bool("version", false, "print a version line and exit")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if *version || fs.Arg(0) == "config" {
		fmt.Println("floor (a control client for the peer bench)")
		return
	}
	runtime.GOMAXPROCS(*procs)
	host := os.Getenv("OLLAMA_HOST")
	if host == "" {
		host = "http://127.0.0.1:11434"
	}
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	body, err := loadBase(*base)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(2)
	}
	steps, err := run(host, body, *maxSteps, os.Stdout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "floor: after %d steps: %v\n", steps, err)
		os.Exit(1)
	}
}

// loadBase reads the first request: path itself, or in a folder the first
// (by name: fakellm numbers them) /api/chat body that offers tools.
func loadBase(path string) ([]byte, error) {
	if path == "" {
		return nil, errors.New("-base is required: olly's first request with tools (a file, or fakellm's FAKELLM_DUMP_DIR folder)")
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return os.ReadFile(path)
	}
	names, err := filepath.Glob(filepath.Join(path, "*_POST_api_chat.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		var r struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if json.Unmarshal(b, &r) == nil && len(r.Tools) > 0 {
			return b, nil
		}
	}
	return nil, fmt.Errorf("no /api/chat request with tools in %s", path)
}

// request is the body split so that a step appends messages without
// encoding the rest again: prefix, the messages joined by commas, suffix.
type request struct {
	prefix, suffix []byte
	msgs           []json.RawMessage
}

func newRequest(first []byte) (*request, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(first, &top); err != nil {
		return nil, fmt.Errorf("the base request is not a JSON object: %w", err)
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(top["messages"], &msgs); err != nil || len(msgs) == 0 {
		return nil, errors.New("the base request has no messages")
	}
	delete(top, "messages")
	top["stream"] = json.RawMessage("true")
	rest, err := json.Marshal(top)
	if err != nil {
		return nil, err
	}
	// rest is an object with at least "stream": its fields follow the messages.
	return &request{prefix: []byte(`{"messages":[`), msgs: msgs, suffix: append([]byte("],"), rest[1:]...)}, nil
}

func (r *request) encode(buf *bytes.Buffer) {
	buf.Reset()
	buf.Write(r.prefix)
	for i, m := range r.msgs {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(m)
	}
	buf.Write(r.suffix)
}

// step appends what olly appends after tool step k ran command: its
// assistant message, the tool's result, the control message.
func (r *request) step(k int, command, output string, exit string) error {
	id := fmt.Sprintf("call_1_%d_1", k)
	if output == "" {
		output = "(no output)"
	}
	for _, m := range []any{
		map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{"id": id,
			"function": map[string]any{"name": "run_terminal_command", "arguments": map[string]any{"command": command}}}}},
		map[string]any{"role": "tool", "content": output + "\n\n[exit code " + exit + ", 0s]",
			"tool_name": "run_terminal_command", "tool_call_id": id},
		map[string]any{"role": "user", "content": fmt.Sprintf("Reminder — your task: Run the steps.\n\n"+
			`<agent_control>{"state":"need_tools","iteration":%d,"maxIterations":25,"remainingIterations":%d,`+
			`"filesChanged":[],"note":"Tool results are above. Continue with the next step of your plan."}</agent_control>`+
			"\nDo NOT repeat your previous response. Proceed directly with tool calls or respond with [TASK_COMPLETE] when finished.",
			k, max(25-k, 0))},
	} {
		b, err := json.Marshal(m)
		if err != nil {
			return err
		}
		r.msgs = append(r.msgs, b)
	}
	return nil
}

// run drives the loop until a response without a tool call, and returns
// the steps it ran.
func run(host string, first []byte, maxSteps int, out io.Writer) (int, error) {
	req, err := newRequest(first)
	if err != nil {
		return 0, err
	}
	sh, err := startBash()
	if err != nil {
		return 0, err
	}
	defer sh.close()
	client := &http.Client{}
	var buf bytes.Buffer
	for k := 1; ; k++ {
		req.encode(&buf)
		command, text, err := chat(client, host+"/api/chat", buf.Bytes())
		if err != nil {
			return k - 1, err
		}
		if command == "" {
			fmt.Fprintln(out, text)
			return k - 1, nil
		}
		if k > maxSteps {
			return k - 1, fmt.Errorf("still asked for tools after %d steps", maxSteps)
		}
		output, exit, err := sh.run(command)
		if err != nil {
			return k - 1, err
		}
		if err := req.step(k, command, output, exit); err != nil {
			return k - 1, err
		}
	}
}

// chat posts body and reads the NDJSON stream: the first tool call's
// command, or else the answer's text.
func chat(client *http.Client, url string, body []byte) (command, text string, err error) {
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return "", "", fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(b)))
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var sb strings.Builder
	for sc.Scan() {
		var chunk struct {
			Message struct {
				Content   string `json:"content"`
				ToolCalls []struct {
					Function struct {
						Arguments struct {
							Command string `json:"command"`
						} `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &chunk); err != nil {
			return "", "", fmt.Errorf("a stream line is not JSON: %w", err)
		}
		if chunk.Error != "" {
			return "", "", errors.New(chunk.Error)
		}
		sb.WriteString(chunk.Message.Content)
		for _, tc := range chunk.Message.ToolCalls {
			if command == "" {
				command = tc.Function.Arguments.Command
			}
		}
	}
	return command, sb.String(), sc.Err()
}

// bash is one long-lived bash reading commands on its stdin; each command
// is followed by an echo of a marker line with its exit status.
type bash struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	marker string
}

func startBash() (*bash, error) {
	c := exec.Command("bash", "--noprofile", "--norc")
	in, err := c.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c.Stderr = c.Stdout
	if err := c.Start(); err != nil {
		return nil, err
	}
	b := &bash{cmd: c, in: in, out: bufio.NewReader(out), marker: fmt.Sprintf("__floor_end_%d__ ", os.Getpid())}
	if _, err := io.WriteString(in, "exec 2>&1\n"); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

func (b *bash) run(command string) (output, exit string, err error) {
	if _, err := io.WriteString(b.in, command+"\necho \""+b.marker+"$?\"\n"); err != nil {
		return "", "", err
	}
	var sb strings.Builder
	for {
		line, err := b.out.ReadString('\n')
		if i := strings.Index(line, b.marker); i >= 0 {
			sb.WriteString(line[:i])
			return strings.TrimRight(sb.String(), "\n"), strings.TrimSpace(line[i+len(b.marker):]), nil
		}
		sb.WriteString(line)
		if err != nil {
			return "", "", fmt.Errorf("bash ended: %w", err)
		}
	}
}

func (b *bash) close() {
	_ = b.in.Close()
	_ = b.cmd.Wait()
}

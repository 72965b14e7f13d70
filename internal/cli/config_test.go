package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/config"
)

// testEnv is a home and a workspace in temporary directories, so no test
// reads or writes the real settings.
type testEnv struct {
	home, ws string
	environ  []string
}

func newTestEnv(t *testing.T, environ ...string) *testEnv {
	t.Helper()
	return &testEnv{home: t.TempDir(), ws: t.TempDir(), environ: append([]string{}, environ...)}
}

func (e *testEnv) global() string  { return filepath.Join(e.home, ".config", "olly", "config.yaml") }
func (e *testEnv) project() string { return filepath.Join(e.ws, ".olly", "config.yaml") }

func (e *testEnv) write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// run executes olly with args and returns the exit code, stdout and stderr.
func (e *testEnv) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	f, out, errOut := e.factory()
	code := Execute(f, append([]string{"--cwd", e.ws}, args...))
	return code, out.String(), errOut.String()
}

func (e *testEnv) factory() (*Factory, *bytes.Buffer, *bytes.Buffer) {
	ios, out, errOut := Test("")
	return &Factory{IO: ios, Environ: e.environ, HomeDir: e.home}, out, errOut
}

func TestConfigList(t *testing.T) {
	e := newTestEnv(t, "OLLY_AGENT_TOOL_TIMEOUT=1m", "OLLY_API_KEY=sk-very-secret")
	e.write(t, e.global(), "# mine\nagent:\n  maxIterations: 40\n")
	e.write(t, e.project(), "agentMode.model: qwen\n")
	code, out, errOut := e.run(t, "--set", "agent.keepAlive=5m", "--base-url", "http://gpu:11434", "config", "list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"agent.maxIterations  ", "40  ", e.global() + ":3\n",
		"agentMode.model ", "qwen ", e.project() + ":1\n",
		"1m ", "env OLLY_AGENT_TOOL_TIMEOUT\n",
		"5m ", "flag --set\n",
		"http://gpu:11434 ", "flag --base-url\n",
		"apiKey ", "******** ", "env OLLY_API_KEY\n",
		"agent.explorerModel", `""`, "default\n",
		"30 rules",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("list output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "sk-very-secret") {
		t.Error("list shows the secret")
	}
	if strings.HasPrefix(out, "KEY") {
		t.Error("header printed when stdout is not a terminal")
	}
}

func TestConfigListJSON(t *testing.T) {
	e := newTestEnv(t, "OLLY_API_KEY=sk-x")
	e.write(t, e.global(), "agent:\n  sensitiveFilePatterns: {\"**/*\": true, \"**/.env\": false}\n")
	code, out, errOut := e.run(t, "config", "list", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got []struct {
		Key    string          `json:"key"`
		Value  json.RawMessage `json:"value"`
		Source config.Source   `json:"source"`
		Env    string          `json:"env"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	byKey := map[string]string{}
	for _, s := range got {
		byKey[s.Key] = string(s.Value)
		if s.Key == "agent.sensitiveFilePatterns" && (s.Source.Kind != config.FromFile || s.Source.Line != 2) {
			t.Errorf("source = %+v", s.Source)
		}
	}
	if len(got) != len(config.Keys()) {
		t.Errorf("%d keys listed, want %d", len(got), len(config.Keys()))
	}
	for key, want := range map[string]string{
		"apiKey":                      `"********"`,
		"agent.toolTimeout":           `30000`,
		"agent.sensitiveFilePatterns": `[{"pattern":"**/*","action":"auto"},{"pattern":"**/.env","action":"ask"}]`,
		"agent.orchestratorTools":     `["write_file","run_terminal_command","run_subagent"]`,
	} {
		if compact(byKey[key]) != want {
			t.Errorf("%s = %s, want %s", key, byKey[key], want)
		}
	}
}

func compact(s string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return s
	}
	return b.String()
}

// TestConfigListBrokenFile: the error names the line, and the file's
// location is printed even though nothing loads.
func TestConfigListBrokenFile(t *testing.T) {
	e := newTestEnv(t)
	e.write(t, e.project(), "agent:\n  maxIterations: lots\n")
	code, out, errOut := e.run(t, "config", "list")
	if code != ExitFailure || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	for _, want := range []string{
		"settings files:\n  global   " + e.global() + " (not created)\n  project  " + e.project() + " (exists)\n",
		"olly: " + e.project() + ":2: agent.maxIterations: expected an integer from 1 to 1000, got the string \"lots\"",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

func TestConfigGet(t *testing.T) {
	e := newTestEnv(t, "OLLY_API_KEY=sk-raw")
	e.write(t, e.global(), "agent:\n  toolTimeout: 90000\n")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{"value", []string{"config", "get", "agent.toolTimeout"}, 0, "90s\n", ""},
		{"show source", []string{"config", "get", "agent.toolTimeout", "--show-source"}, 0, "90s (from " + e.global() + ":2)\n", ""},
		{"json", []string{"config", "get", "agent.toolTimeout", "--json"}, 0,
			"{\n  \"key\": \"agent.toolTimeout\",\n  \"value\": 90000,\n  \"source\": {\n    \"kind\": \"file\",\n    \"name\": \"" + e.global() + "\",\n    \"line\": 2\n  }\n}\n", ""},
		{"list value", []string{"config", "get", "agent.orchestratorTools"}, 0, "[write_file, run_terminal_command, run_subagent]\n", ""},
		{"secret is printed for scripts", []string{"config", "get", "apiKey"}, 0, "sk-raw\n", ""},
		{"flag wins", []string{"--model", "m1", "config", "get", "agentMode.model", "--show-source"}, 0, "m1 (from flag --model)\n", ""},
		{"unknown key", []string{"config", "get", "agent.maxIteration"}, ExitUsage, "",
			"olly: unknown key \"agent.maxIteration\" (did you mean agent.maxIterations?)\n"},
		{"renamed key", []string{"config", "get", "askMode.model"}, ExitUsage, "", "renamed to chatMode.*"},
		{"no key", []string{"config", "get"}, ExitFailure, "", "accepts 1 arg(s), received 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := e.run(t, tt.args...)
			if code != tt.wantCode || out != tt.wantOut || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("exit %d, stdout %q, stderr %q\nwant exit %d, stdout %q, stderr containing %q",
					code, out, errOut, tt.wantCode, tt.wantOut, tt.wantErr)
			}
		})
	}
}

func TestConfigSetAndUnset(t *testing.T) {
	e := newTestEnv(t)
	e.write(t, e.global(), "# my settings\nagent:\n  maxIterations: 30 # enough\n")

	code, _, errOut := e.run(t, "config", "set", "agent.maxIterations", "45")
	if code != 0 || errOut != "Set agent.maxIterations in "+e.global()+"\n" {
		t.Fatalf("set: exit %d, stderr %q", code, errOut)
	}
	if got := readFile(t, e.global()); got != "# my settings\nagent:\n  maxIterations: 45 # enough\n" {
		t.Errorf("global file:\n%s", got)
	}

	code, _, errOut = e.run(t, "config", "set", "agent.toolTimeout", "2m", "--project")
	if code != 0 || !strings.Contains(errOut, e.project()) {
		t.Fatalf("set --project: exit %d, stderr %q", code, errOut)
	}
	if got := readFile(t, e.project()); !strings.HasSuffix(got, "agent:\n  toolTimeout: 2m\n") {
		t.Errorf("project file:\n%s", got)
	}
	code, out, _ := e.run(t, "config", "get", "agent.toolTimeout", "--show-source")
	if code != 0 || out != "2m (from "+e.project()+":3)\n" {
		t.Errorf("get after set: %d %q", code, out)
	}

	code, _, errOut = e.run(t, "config", "unset", "agent.maxIterations")
	if code != 0 || errOut != "Removed agent.maxIterations from "+e.global()+"\n" {
		t.Fatalf("unset: exit %d, stderr %q", code, errOut)
	}
	if got := readFile(t, e.global()); got != "# my settings\n" {
		t.Errorf("global file after unset:\n%q", got)
	}
	code, _, errOut = e.run(t, "config", "unset", "agent.maxIterations")
	if code != 0 || errOut != "agent.maxIterations is not set in "+e.global()+"; nothing to do\n" {
		t.Errorf("second unset: exit %d, stderr %q", code, errOut)
	}
}

func TestConfigSetErrors(t *testing.T) {
	e := newTestEnv(t)
	e.write(t, e.global(), "baseUrl: http://x:1\n")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"out of range", []string{"config", "set", "agent.maxIterations", "0"}, ExitUsage,
			"olly: agent.maxIterations: 0 is out of range: expected an integer from 1 to 1000\n"},
		{"unknown key", []string{"config", "set", "agent.maxIteratons", "3"}, ExitUsage,
			"olly: unknown key \"agent.maxIteratons\" (did you mean agent.maxIterations?)\n"},
		{"bad enum", []string{"config", "set", "agent.sessionTitleGeneration", "always"}, ExitUsage,
			"expected one of firstMessage, currentModel, selectModel"},
		{"both files", []string{"config", "set", "baseUrl", "http://y:1", "--global", "--project"}, ExitUsage,
			"olly: --global and --project cannot be used together\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := e.run(t, tt.args...)
			if code != tt.wantCode || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want exit %d, stderr containing %q", code, errOut, tt.wantCode, tt.wantErr)
			}
			if got := readFile(t, e.global()); got != "baseUrl: http://x:1\n" {
				t.Errorf("file changed:\n%s", got)
			}
		})
	}
}

// TestConfigSetNotes: set says when what it wrote is not what olly will
// use, and refuses user-only keys in project files.
func TestConfigSetNotes(t *testing.T) {
	e := newTestEnv(t, "OLLY_AGENT_MAX_ITERATIONS=10")
	code, _, errOut := e.run(t, "config", "set", "agent.maxIterations", "20")
	if code != 0 || !strings.Contains(errOut, "note: agent.maxIterations comes from env OLLY_AGENT_MAX_ITERATIONS, which overrides "+e.global()) {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = e.run(t, "config", "set", "apiKey", "sk-1", "--project")
	if code != ExitUsage || !strings.Contains(errOut, "may not be set in a project file") {
		t.Errorf("exit %d, stderr %q: a project file must not take apiKey", code, errOut)
	}
	if _, err := os.Stat(e.project()); err == nil {
		t.Error("refused set --project still created the project file")
	}
	code, _, errOut = e.run(t, "config", "set", "apiKey", "sk-1")
	if fi, err := os.Stat(e.global()); code != 0 || err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("global file holding apiKey: exit %d %q %v %v", code, errOut, fi.Mode(), err)
	}
	// A broken project file does not stop set on the global file, and set
	// says the settings still have problems.
	e.write(t, e.project(), "agent: [\n")
	code, _, errOut = e.run(t, "config", "set", "baseUrl", "http://z:1")
	if code != 0 || !strings.Contains(errOut, "note: the settings still have problems:\n"+e.project()+":1: malformed YAML") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestConfigUnsetFixesErrors(t *testing.T) {
	e := newTestEnv(t)
	e.write(t, e.global(), "askMode:\n  model: old\nbaseUrl: http://x:1\n")
	if code, _, _ := e.run(t, "config", "list"); code != ExitFailure {
		t.Fatalf("list accepted a renamed key (exit %d)", code)
	}
	if code, _, errOut := e.run(t, "config", "unset", "askMode.model"); code != 0 {
		t.Fatalf("unset: %d %s", code, errOut)
	}
	if code, _, errOut := e.run(t, "config", "list"); code != 0 {
		t.Fatalf("list after unset: %d %s", code, errOut)
	}
	code, _, errOut := e.run(t, "config", "unset", "no.such.key")
	if code != ExitUsage || !strings.Contains(errOut, `unknown key "no.such.key"`) || !strings.Contains(errOut, "it is not in "+e.global()+" either") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestConfigPath(t *testing.T) {
	e := newTestEnv(t, "XDG_STATE_HOME=/state", "OLLY_STORAGE_PATH=/data/olly")
	e.write(t, e.global(), "baseUrl: http://x:1\n")
	code, out, errOut := e.run(t, "config", "path")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"global config   " + e.global() + "  exists",
		"project config  " + e.project(),
		"not created",
		"data            /data/olly",
		"state (logs)    /state/olly",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("path output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = e.run(t, "config", "path", "--json")
	var got struct {
		config.Paths
		GlobalFileExists  bool `json:"globalFileExists"`
		ProjectFileExists bool `json:"projectFileExists"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	if got.GlobalFile != e.global() || !got.GlobalFileExists || got.ProjectFileExists || got.DataDir != "/data/olly" {
		t.Errorf("json = %+v", got)
	}
}

// TestConfigPathBrokenFile: the paths are printed even when the settings
// do not load; the exit status and stderr say why.
func TestConfigPathBrokenFile(t *testing.T) {
	e := newTestEnv(t)
	e.write(t, e.global(), "agent:\n\tmaxIterations: 3\n")
	code, out, errOut := e.run(t, "config", "path")
	if code != ExitFailure || !strings.Contains(out, e.global()) || !strings.Contains(errOut, e.global()+":2: malformed YAML") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

func TestGlobalFlagErrors(t *testing.T) {
	e := newTestEnv(t)
	tests := []struct {
		name    string
		args    []string
		want    int
		wantErr string
	}{
		{"set without =", []string{"--set", "agent.maxIterations", "config", "list"}, ExitUsage, `--set "agent.maxIterations": expected key=value`},
		{"set unknown key", []string{"--set", "agent.maxIteration=3", "config", "list"}, ExitFailure, `flag --set: unknown key "agent.maxIteration" (did you mean agent.maxIterations?)`},
		{"bad base url", []string{"--base-url", "gpu", "config", "list"}, ExitFailure, `flag --base-url: baseUrl: "gpu" is not valid`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := e.run(t, tt.args...)
			if code != tt.want || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want %d, %q", code, errOut, tt.want, tt.wantErr)
			}
		})
	}
}

func TestFactoryConfigIsCachedAndWarnsOnce(t *testing.T) {
	e := newTestEnv(t, "OLLY_NOT_A_SETTING=1", "OLLY_SHELL_RUN=abc", "OLLY_DB=/tmp/x.db")
	f, _, errOut := e.factory()
	f.Flags.Cwd = e.ws
	a, err := f.Config()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := f.Config()
	if a != b {
		t.Error("Config built twice")
	}
	if n := strings.Count(errOut.String(), "olly: warning: OLLY_NOT_A_SETTING is set but is not an olly setting"); n != 1 {
		t.Errorf("warning printed %d times: %q", n, errOut.String())
	}
	if strings.Contains(errOut.String(), "OLLY_SHELL_RUN") || strings.Contains(errOut.String(), "OLLY_DB") {
		t.Errorf("warned about variables olly itself reads: %q", errOut.String())
	}
	if p := a.Paths().ProjectFile; p != e.project() {
		t.Errorf("project file = %s, want the --cwd workspace's", p)
	}
}

func TestConfigCompletion(t *testing.T) {
	e := newTestEnv(t)
	tests := []struct {
		name string
		args []string
		want []string
		not  string
	}{
		{"keys", []string{"__complete", "config", "get", "agent.max"}, []string{
			"agent.maxIterations\tMost tool rounds (stream, run tools, continue) in one agent run",
			"agent.maxActiveSessions\t", "agent.maxContextWindow\t",
		}, "baseUrl"},
		{"enum values", []string{"__complete", "config", "set", "agent.continuationStrategy", ""}, []string{"full\n", "standard\n", "minimal\n"}, "agent."},
		{"bool values", []string{"__complete", "config", "set", "agent.enableThinking", "f"}, []string{"false\n"}, "true"},
		{"unset keys", []string{"__complete", "config", "unset", "chatMode."}, []string{"chatMode.model\t", "chatMode.temperature\t"}, "agentMode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, out, _ := e.run(t, tt.args...)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("completion lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(out, tt.not) {
				t.Errorf("completion offers %q:\n%s", tt.not, out)
			}
			if !strings.Contains(out, ":4\n") { // ShellCompDirectiveNoFileComp
				t.Errorf("completion allows file names:\n%s", out)
			}
		})
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

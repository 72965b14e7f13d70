package config

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func globalPath(home string) string { return filepath.Join(home, ".config", "olly", "config.yaml") }
func projectPath(ws string) string  { return filepath.Join(ws, ".olly", "config.yaml") }

func mustLoad(t testing.TB, opts LoadOptions) *Config {
	t.Helper()
	c, err := Load(opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

// TestLayers checks each layer overrides the one below, and that the source
// of the effective value names the layer precisely.
func TestLayers(t *testing.T) {
	type files struct{ global, project string }
	tests := []struct {
		name     string
		files    files
		env      []string
		flags    []FlagValue
		want     int
		wantFrom func(home, ws string) Source
	}{
		{
			name: "default", want: 25,
			wantFrom: func(_, _ string) Source { return Source{Kind: FromDefault} },
		},
		{
			name:  "global file, nested",
			files: files{global: "# mine\nagent:\n  maxIterations: 30\n"}, want: 30,
			wantFrom: func(home, _ string) Source { return Source{Kind: FromFile, Name: globalPath(home), Line: 3} },
		},
		{
			name:  "global file, dotted",
			files: files{global: "agent.maxIterations: 31\n"}, want: 31,
			wantFrom: func(home, _ string) Source { return Source{Kind: FromFile, Name: globalPath(home), Line: 1} },
		},
		{
			name:  "project overrides global",
			files: files{global: "agent.maxIterations: 31\n", project: "embedding.model: mxbai\nagent:\n  maxIterations: 32\n"}, want: 32,
			wantFrom: func(_, ws string) Source { return Source{Kind: FromFile, Name: projectPath(ws), Line: 3} },
		},
		{
			name:  "environment overrides files",
			files: files{global: "agent.maxIterations: 31\n", project: "agent.maxIterations: 32\n"},
			env:   []string{"OLLY_AGENT_MAX_ITERATIONS=33", "PATH=/bin"}, want: 33,
			wantFrom: func(_, _ string) Source { return Source{Kind: FromEnv, Name: "OLLY_AGENT_MAX_ITERATIONS"} },
		},
		{
			name:  "flag overrides environment",
			env:   []string{"OLLY_AGENT_MAX_ITERATIONS=33"},
			flags: []FlagValue{{Flag: "--set", Key: "agent.maxIterations", Value: "34"}}, want: 34,
			wantFrom: func(_, _ string) Source { return Source{Kind: FromFlag, Name: "--set"} },
		},
		{
			name: "later flag wins",
			flags: []FlagValue{
				{Flag: "--set", Key: "agent.maxIterations", Value: "34"},
				{Flag: "--set", Key: "agent.maxIterations", Value: "35"},
			}, want: 35,
			wantFrom: func(_, _ string) Source { return Source{Kind: FromFlag, Name: "--set"} },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			if tt.files.global != "" {
				writeFile(t, globalPath(home), tt.files.global)
			}
			if tt.files.project != "" {
				writeFile(t, projectPath(ws), tt.files.project)
			}
			c := mustLoad(t, LoadOptions{Home: home, Workspace: ws, Environ: tt.env, Flags: tt.flags})
			if c.Agent.MaxIterations != tt.want {
				t.Errorf("maxIterations = %d, want %d", c.Agent.MaxIterations, tt.want)
			}
			src, _ := c.Source("agent.maxIterations")
			if want := tt.wantFrom(home, ws); src != want {
				t.Errorf("source = %+v, want %+v", src, want)
			}
		})
	}
}

// TestSessionLayer: overrides sit above flags and leave the original alone.
func TestSessionLayer(t *testing.T) {
	base := mustLoad(t, LoadOptions{Home: t.TempDir(), Flags: []FlagValue{{Flag: "--model", Key: "agentMode.model", Value: "a"}}})
	s, err := base.WithOverrides(map[string]any{
		"agentMode.model":             "b",
		"agent.maxIterations":         float64(40), // as JSON decoding gives it
		"agent.toolTimeout":           "2m",
		"agent.explorerModel":         "small",
		"agent.orchestratorTools":     []any{"write_file"},
		"agent.sensitiveFilePatterns": []FileRule{{Pattern: "**/*", Action: FileAsk}},
		"agent.keepAlive":             -1,
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.AgentMode.Model != "b" || s.Agent.MaxIterations != 40 || s.Agent.ToolTimeout != 2*time.Minute ||
		s.Agent.KeepAlive != "-1" || len(s.Agent.OrchestratorTools) != 1 || s.Agent.SensitiveFilePatterns[0].Action != FileAsk {
		t.Errorf("overrides not applied: %+v", s.Settings)
	}
	if src, _ := s.Source("agentMode.model"); src.Kind != FromSession {
		t.Errorf("source = %v, want session", src)
	}
	if base.AgentMode.Model != "a" || base.Agent.MaxIterations != 25 || len(base.Agent.OrchestratorTools) != 3 {
		t.Errorf("WithOverrides changed the original: %+v", base.Settings)
	}
	if src, _ := base.Source("agentMode.model"); src != (Source{Kind: FromFlag, Name: "--model"}) {
		t.Errorf("original source = %v", src)
	}
}

func TestSessionLayerErrors(t *testing.T) {
	base := mustLoad(t, LoadOptions{Home: t.TempDir()})
	tests := []struct {
		name      string
		overrides map[string]any
		want      string
	}{
		{"unknown", map[string]any{"agent.maxIteration": 3}, `session: unknown key "agent.maxIteration" (did you mean agent.maxIterations?)`},
		{"range", map[string]any{"agent.maxIterations": 5000}, "session: agent.maxIterations: 5000 is out of range: expected an integer from 1 to 1000"},
		{"type", map[string]any{"agent.enableThinking": 3}, "session: agent.enableThinking: expected true or false, got 3"},
		{"nil", map[string]any{"agentMode.model": nil}, "session: agentMode.model: no value"},
		{"unordered rules", map[string]any{"agent.sensitiveFilePatterns": map[string]any{"a": "ask", "b": "auto"}}, "loses the order"},
		{"renamed", map[string]any{"askMode.model": "x"}, "renamed to chatMode.*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := base.WithOverrides(tt.overrides)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestPaths(t *testing.T) {
	tests := []struct {
		name         string
		env          []string
		workspace    bool
		want         func(home, ws string) Paths
		wantWarnings int
	}{
		{
			name: "home fallbacks", workspace: true,
			want: func(home, ws string) Paths {
				return Paths{
					GlobalFile: filepath.Join(home, ".config/olly/config.yaml"), ProjectFile: filepath.Join(ws, ".olly/config.yaml"),
					ConfigDir: filepath.Join(home, ".config/olly"), DataDir: filepath.Join(home, ".local/share/olly"),
					StateDir: filepath.Join(home, ".local/state/olly"),
				}
			},
		},
		{
			name: "XDG variables",
			env:  []string{"XDG_CONFIG_HOME=/x/cfg", "XDG_DATA_HOME=/x/data", "XDG_STATE_HOME=/x/state"},
			want: func(_, _ string) Paths {
				return Paths{GlobalFile: "/x/cfg/olly/config.yaml", ConfigDir: "/x/cfg/olly", DataDir: "/x/data/olly", StateDir: "/x/state/olly"}
			},
		},
		{
			name: "relative XDG ignored with a warning",
			env:  []string{"XDG_CONFIG_HOME=rel", "XDG_DATA_HOME="},
			want: func(home, _ string) Paths {
				return Paths{
					GlobalFile: filepath.Join(home, ".config/olly/config.yaml"), ConfigDir: filepath.Join(home, ".config/olly"),
					DataDir: filepath.Join(home, ".local/share/olly"), StateDir: filepath.Join(home, ".local/state/olly"),
				}
			},
			wantWarnings: 1,
		},
		{
			name: "storagePath moves the data directory",
			env:  []string{"OLLY_STORAGE_PATH=/srv/olly"},
			want: func(home, _ string) Paths {
				return Paths{
					GlobalFile: filepath.Join(home, ".config/olly/config.yaml"), ConfigDir: filepath.Join(home, ".config/olly"),
					DataDir: "/srv/olly", StateDir: filepath.Join(home, ".local/state/olly"),
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, ws := t.TempDir(), ""
			if tt.workspace {
				ws = t.TempDir()
			}
			c := mustLoad(t, LoadOptions{Home: home, Workspace: ws, Environ: tt.env})
			if got, want := c.Paths(), tt.want(home, ws); got != want {
				t.Errorf("Paths = %+v\nwant    %+v", got, want)
			}
			if len(c.Warnings()) != tt.wantWarnings {
				t.Errorf("warnings = %q, want %d", c.Warnings(), tt.wantWarnings)
			}
		})
	}
}

func TestNoHome(t *testing.T) {
	_, err := Load(LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "set HOME") {
		t.Fatalf("err = %v, want a message saying to set HOME", err)
	}
	// With every XDG directory given, home is not needed.
	if _, err := Load(LoadOptions{Environ: []string{"XDG_CONFIG_HOME=/a", "XDG_DATA_HOME=/b", "XDG_STATE_HOME=/c"}}); err != nil {
		t.Fatal(err)
	}
}

// TestResolvePathsIgnoresBrokenFiles: the locations are known even when a
// file does not load, so `olly config path` can always answer.
func TestResolvePathsIgnoresBrokenFiles(t *testing.T) {
	home := t.TempDir()
	writeFile(t, globalPath(home), "agent: [\n")
	opts := LoadOptions{Home: home}
	if _, err := Load(opts); err == nil {
		t.Fatal("Load accepted a broken file")
	}
	p, err := ResolvePaths(opts)
	if err != nil || p.GlobalFile != globalPath(home) {
		t.Fatalf("ResolvePaths = %+v, %v", p, err)
	}
}

func TestUnreadableFile(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(globalPath(home), 0o755); err != nil { // a directory where the file should be
		t.Fatal(err)
	}
	_, err := Load(LoadOptions{Home: home})
	var ce *Error
	if !errors.As(err, &ce) || ce.Kind != ErrIO || !strings.Contains(err.Error(), globalPath(home)+": cannot read the settings file") {
		t.Fatalf("err = %v", err)
	}
}

func TestWarnings(t *testing.T) {
	c := mustLoad(t, LoadOptions{Home: t.TempDir(), Environ: []string{
		"OLLY_AGENT_MAX_ITERATION=3", // a typo: warned, with the fix
		"OLLY_SOMETHING_ELSE=1",      // another tool's: warned
		"OLLY_AGENT_SESSION_TITLE_GENERATION=selectModel",
	}})
	got := strings.Join(c.Warnings(), "\n")
	for _, want := range []string{
		"OLLY_AGENT_MAX_ITERATION is set but is not an olly setting; ignored (did you mean OLLY_AGENT_MAX_ITERATIONS?)",
		"OLLY_SOMETHING_ELSE is set but is not an olly setting; ignored\n",
		"agent.sessionTitleModel is empty",
	} {
		if !strings.Contains(got+"\n", want) {
			t.Errorf("warnings %q lack %q", got, want)
		}
	}
	if c.Agent.MaxIterations != 25 {
		t.Error("an unknown variable changed a setting")
	}
	c = mustLoad(t, LoadOptions{Home: t.TempDir(), Environ: []string{"OLLY_DB=/x.db"}, OtherEnv: []string{"OLLY_DB"}})
	if len(c.Warnings()) != 0 {
		t.Errorf("warned about a variable olly itself reads: %q", c.Warnings())
	}
}

// TestEveryKeyFromEnv sets every key through its variable, so a key whose
// variable cannot be read is caught.
func TestEveryKeyFromEnv(t *testing.T) {
	values := map[string]string{
		"string": "x", "integer": "", "number": "1.5", "boolean": "false", "duration": "1m",
		"list of strings": "a,b", "file rules": `{"**/*.go": ask}`,
		"MCP servers": `{fs: {command: npx, args: [-y, server-fs]}}`,
	}
	for _, k := range Keys() {
		t.Run(k.Key, func(t *testing.T) {
			v := values[strings.SplitN(k.Type, " (", 2)[0]]
			switch {
			case k.Type == "integer":
				v = strings.SplitN(k.Range, "–", 2)[1] // the maximum
			case k.Type == "duration" && k.Range != "":
				v = strings.TrimSuffix(strings.SplitN(k.Range, "–", 2)[1], " ms") // the maximum
			case k.Type == "boolean":
				v = strconv.FormatBool(k.Default != "true")
			case len(k.Enum) > 0:
				v = k.Enum[len(k.Enum)-1]
			case strings.Contains(k.Type, "(url)"), strings.Contains(k.Type, "(optionalUrl)"):
				v = "https://example.com:8080"
			case strings.Contains(k.Type, "(keepAlive)"):
				v = "10m"
			case strings.Contains(k.Type, "(absPath)"):
				v = "/abs"
			}
			c := mustLoad(t, LoadOptions{Home: t.TempDir(), Environ: []string{k.Env + "=" + v}})
			en, _ := c.Entry(k.Key)
			if en.Source != (Source{Kind: FromEnv, Name: k.Env}) {
				t.Fatalf("source = %v", en.Source)
			}
			if en.Text() == k.Default {
				t.Errorf("value %q is still the default", en.Text())
			}
		})
	}
}

func TestValueForms(t *testing.T) {
	tests := []struct {
		name, file string
		check      func(*Config) bool
	}{
		{"duration in ms", "agent.toolTimeout: 45000\n", func(c *Config) bool { return c.Agent.ToolTimeout == 45*time.Second }},
		{"duration string", "agent.toolTimeout: 2m\n", func(c *Config) bool { return c.Agent.ToolTimeout == 2*time.Minute }},
		{"keepAlive -1", "agent.keepAlive: -1\n", func(c *Config) bool { return c.Agent.KeepAlive == "-1" }},
		{"keepAlive 30m", "agent.keepAlive: 30m\n", func(c *Config) bool { return c.Agent.KeepAlive == "30m" }},
		{"float from int", "chatMode.temperature: 1\n", func(c *Config) bool { return c.ChatMode.Temperature == 1 }},
		{"hex int", "agent.maxIterations: 0x10\n", func(c *Config) bool { return c.Agent.MaxIterations == 16 }},
		{"list", "agent:\n  orchestratorTools:\n    - write_file\n", func(c *Config) bool { return len(c.Agent.OrchestratorTools) == 1 }},
		{"alias", "agentMode:\n  model: &m qwen\nchatMode:\n  model: *m\n", func(c *Config) bool { return c.ChatMode.Model == "qwen" }},
		{"empty group", "agent:\n  # maxIterations: 3\n", func(c *Config) bool { return c.Agent.MaxIterations == 25 }},
		{"empty file", "", func(c *Config) bool { return c.Agent.MaxIterations == 25 }},
		{"comments only", "# nothing yet\n", func(c *Config) bool { return c.Agent.MaxIterations == 25 }},
		{"explicit empty string", "agent.keepAlive: \"\"\n", func(c *Config) bool { return c.Agent.KeepAlive == "" }},
		{"storagePath", "storagePath: /data/olly\n", func(c *Config) bool { return c.Paths().DataDir == "/data/olly" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			writeFile(t, globalPath(home), tt.file)
			if c := mustLoad(t, LoadOptions{Home: home}); !tt.check(c) {
				t.Errorf("unexpected settings:\n%s", c)
			}
		})
	}
}

func TestProjectFileMayNotSetUserOnlyKeys(t *testing.T) {
	for _, key := range []string{"baseUrl", "provider", "apiKey", "storagePath", "agent.sensitiveFilePatterns"} {
		t.Run(key, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			value := `"x"`
			switch key {
			case "baseUrl":
				value = "http://evil.example:11434"
			case "provider":
				value = "openai"
			case "storagePath":
				value = "/tmp/elsewhere"
			case "agent.sensitiveFilePatterns":
				value = `{"**/*": auto}`
			}
			writeFile(t, filepath.Join(ws, ".olly", "config.yaml"), "# project\n"+key+": "+value+"\nagent.maxIterations: 7\n")
			c, err := Load(LoadOptions{Home: home, Workspace: ws})
			if err != nil {
				t.Fatalf("one forbidden key made the whole load fail (a cloned repository could lock the user out): %v", err)
			}
			if src, _ := c.Source(key); src.Kind != FromDefault {
				t.Fatalf("a project file set %s (source %v)", key, src)
			}
			if c.Agent.MaxIterations != 7 {
				t.Errorf("the rest of the project file was not applied: maxIterations %d", c.Agent.MaxIterations)
			}
			w := strings.Join(c.Warnings(), "\n")
			if !strings.Contains(w, "may not be set in a project file") || !strings.Contains(w, "config.yaml:2") || !strings.Contains(w, "ignored") {
				t.Fatalf("warning does not explain the refusal with file and line: %q", w)
			}
			// The same key in the global file is fine.
			writeFile(t, filepath.Join(ws, ".olly", "config.yaml"), "")
			writeFile(t, filepath.Join(home, ".config", "olly", "config.yaml"), key+": "+value+"\n")
			if _, err := Load(LoadOptions{Home: home, Workspace: ws}); err != nil {
				t.Fatalf("global file refused %s: %v", key, err)
			}
		})
	}
	if CheckProjectKey("agent.maxIterations") != nil || CheckProjectKey("baseUrl") == nil {
		t.Fatal("CheckProjectKey")
	}
}

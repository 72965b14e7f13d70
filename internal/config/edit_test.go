package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSetInData pins the exact text `olly config set` produces: comments,
// order, other keys and (where the edit is a one-line one) blank lines stay.
func TestSetInData(t *testing.T) {
	const commented = `# My olly settings.
baseUrl: http://gpu:11434 # the box under the desk

agent:
  # How long an agent may go on.
  maxIterations: 30 # enough

  toolTimeout: 45s
`
	tests := []struct {
		name, before, key, value, want string
	}{
		{"replace in place", commented, "agent.maxIterations", "40", strings.Replace(commented, "maxIterations: 30", "maxIterations: 40", 1)},
		{"replace a quoted string", "baseUrl: 'http://a:1' # note\n", "baseUrl", "http://b:2", "baseUrl: http://b:2 # note\n"},
		{"replace with a value that needs quotes", "agent:\n  keepAlive: 5m\n", "agent.keepAlive", "-1", "agent:\n  keepAlive: \"-1\"\n"},
		{"insert into the group", commented, "agent.keepAlive", "30m", commented + "  keepAlive: 30m\n"},
		{"insert a new group at the end", commented, "chatMode.model", "llama3.1:8b", commented + "chatMode:\n  model: llama3.1:8b\n"},
		{"insert a top-level key", commented, "provider", "openai", commented + "provider: openai\n"},
		{"dotted file stays dotted", "agent.maxIterations: 3\n", "agent.toolTimeout", "1m", "agent.maxIterations: 3\nagent.toolTimeout: 1m\n"},
		{"new file", "", "agent.toolTimeout", "45s", newFileHeader + "agent:\n  toolTimeout: 45s\n"},
		{"comments only", "# to do\n", "baseUrl", "http://x:1", "# to do\nbaseUrl: http://x:1\n"},
		{"no final newline", "agent:\n  maxIterations: 3", "agent.toolTimeout", "5s", "agent:\n  maxIterations: 3\n  toolTimeout: 5s\n"},
		{"four-space indentation", "agent:\n    maxIterations: 3\n", "agent.enableThinking", "false", "agent:\n    maxIterations: 3\n    enableThinking: false\n"},
		{"CRLF", "agent:\r\n  maxIterations: 3\r\n", "agent.toolTimeout", "5s", "agent:\r\n  maxIterations: 3\r\n  toolTimeout: 5s\r\n"},
		{"empty group", "agent:\n# later\nbaseUrl: http://x:1\n", "agent.maxIterations", "7", "agent:\n  maxIterations: 7\n# later\nbaseUrl: http://x:1\n"},
		{"flow group", "agent: {maxIterations: 3} # c\n", "agent.toolTimeout", "1m", "agent: {maxIterations: 3, toolTimeout: 1m} # c\n"},
		{"list value", "agent:\n  maxIterations: 3\n", "agent.orchestratorTools", "write_file,run_subagent", "agent:\n  maxIterations: 3\n  orchestratorTools: [write_file, run_subagent]\n"},
		{"rules keep the file's comments", "# top\nagent:\n  maxIterations: 3 # why\n", "agent.sensitiveFilePatterns", `{"**/*": auto, "**/.env*": false}`,
			"# top\nagent:\n  maxIterations: 3 # why\n  sensitiveFilePatterns:\n    '**/*': auto\n    '**/.env*': ask\n"},
		{"replace rules", "agent:\n  sensitiveFilePatterns: # mine\n    a: ask\n  maxIterations: 3\n", "agent.sensitiveFilePatterns", "{b: auto}",
			"agent:\n  sensitiveFilePatterns: # mine\n    b: auto\n  maxIterations: 3\n"},
		{"set twice becomes once", "agent.maxIterations: 3\nagent:\n  maxIterations: 4\n", "agent.maxIterations", "5", "agent:\n  maxIterations: 5\n"},
		{"anchored value is replaced, not its anchor's users", "agentMode:\n  model: &m qwen\nchatMode:\n  model: *m\n", "agentMode.model", "llama",
			"agentMode:\n  model: llama\nchatMode:\n  model: qwen\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := keys().byKey[tt.key]
			v, p := decodeText(e, tt.value)
			if p != nil {
				t.Fatal(p.msg)
			}
			got, err := setInData([]byte(tt.before), tt.key, e.kind.toNode(v))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestUnsetInData(t *testing.T) {
	tests := []struct {
		name, before, key, want string
		removed                 bool
	}{
		{"one line", "# top\nagent:\n  maxIterations: 30 # why\n\n  toolTimeout: 5s\nbaseUrl: http://x:1\n", "agent.maxIterations",
			"# top\nagent:\n\n  toolTimeout: 5s\nbaseUrl: http://x:1\n", true},
		{"last key of a group removes the group, keeps its comment", "# top\nagent:\n  maxIterations: 30\nbaseUrl: http://x:1\n", "agent.maxIterations",
			"# top\nbaseUrl: http://x:1\n", true},
		{"dotted", "baseUrl: http://x:1\n\nagent.maxIterations: 3\n", "agent.maxIterations", "baseUrl: http://x:1\n\n", true},
		{"a typo", "agent:\n  maxIteration: 3\n  toolTimeout: 5s\n", "agent.maxIteration", "agent:\n  toolTimeout: 5s\n", true},
		{"a renamed key", "askMode:\n  model: x\nbaseUrl: http://x:1\n", "askMode.model", "baseUrl: http://x:1\n", true},
		{"a whole unknown group", "agnt:\n  a: 1\n  b: 2\nbaseUrl: http://x:1\n", "agnt", "baseUrl: http://x:1\n", true},
		{"every occurrence", "agent.maxIterations: 3\nbaseUrl: http://x:1\nagent:\n  maxIterations: 4\n  toolTimeout: 5s\n", "agent.maxIterations",
			"baseUrl: http://x:1\nagent:\n  toolTimeout: 5s\n", true},
		{"the only key", "# top\nbaseUrl: http://x:1 # c\n", "baseUrl", "# top\n", true},
		{"the only group", "# top\nagent:\n  # why\n  maxIterations: 3\n# end\n", "agent.maxIterations", "# top\n# why\n# end\n", true},
		{"not there", "baseUrl: http://x:1\n", "agent.maxIterations", "baseUrl: http://x:1\n", false},
		{"empty file", "", "baseUrl", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, removed, err := unsetInData([]byte(tt.before), tt.key)
			if err != nil {
				t.Fatal(err)
			}
			if removed != tt.removed || string(got) != tt.want {
				t.Errorf("removed=%v, got:\n%s\nwant removed=%v:\n%s", removed, got, tt.removed, tt.want)
			}
		})
	}
}

// TestSetThenLoad is the round trip through real files: set, load, see the
// value with the right source line; unset, load, see the default.
func TestSetThenLoad(t *testing.T) {
	home := t.TempDir()
	path := globalPath(home)
	writeFile(t, path, "# keep me\nbaseUrl: http://gpu:11434\n")
	if err := SetInFile(path, "agent.toolTimeout", "2m"); err != nil {
		t.Fatal(err)
	}
	c := mustLoad(t, LoadOptions{Home: home})
	if c.Agent.ToolTimeout != 2*time.Minute {
		t.Fatalf("toolTimeout = %v", c.Agent.ToolTimeout)
	}
	if src, _ := c.Source("agent.toolTimeout"); src != (Source{Kind: FromFile, Name: path, Line: 4}) {
		t.Errorf("source = %+v", src)
	}
	removed, err := UnsetInFile(path, "agent.toolTimeout")
	if err != nil || !removed {
		t.Fatalf("unset: %v %v", removed, err)
	}
	data, _ := os.ReadFile(path)
	if string(data) != "# keep me\nbaseUrl: http://gpu:11434\n" {
		t.Errorf("after unset:\n%s", data)
	}
}

func TestSetInFileErrors(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.yaml")
	writeFile(t, broken, "agent:\n  maxIterations: [\n")
	tests := []struct {
		name, path, key, value string
		kind                   ErrorKind
		want                   string
	}{
		{"unknown key", filepath.Join(dir, "a.yaml"), "agent.maxIteration", "3", ErrUnknownKey, `unknown key "agent.maxIteration" (did you mean agent.maxIterations?)`},
		{"renamed key", filepath.Join(dir, "a.yaml"), "editMode.model", "x", ErrRenamedKey, "renamed to chatMode.*"},
		{"out of range", filepath.Join(dir, "a.yaml"), "agent.maxIterations", "5000", ErrRange, "agent.maxIterations: 5000 is out of range: expected an integer from 1 to 1000"},
		{"bad enum", filepath.Join(dir, "a.yaml"), "provider", "claude", ErrEnum, `provider: "claude" is not allowed: expected one of ollama, openai`},
		{"bad rules", filepath.Join(dir, "a.yaml"), "agent.sensitiveFilePatterns", "{a: sometimes}", ErrEnum, `pattern "a": action must be ask or auto`},
		{"malformed file", broken, "baseUrl", "http://x:1", ErrSyntax, broken + ":2: malformed YAML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := os.ReadFile(tt.path)
			err := SetInFile(tt.path, tt.key, tt.value)
			var ce *Error
			if !errors.As(err, &ce) || ce.Kind != tt.kind || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v (kind %v), want kind %d containing %q", err, ce, tt.kind, tt.want)
			}
			after, _ := os.ReadFile(tt.path)
			if string(before) != string(after) {
				t.Error("a failed set changed the file")
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "a.yaml")); !os.IsNotExist(err) {
		t.Error("a failed set created the file")
	}
}

func TestSetCreatesFileAndProtectsSecrets(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "new", "dir", "config.yaml")
	if err := SetInFile(path, "agentMode.model", "qwen"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("new file: %v %v", fi.Mode(), err)
	}
	if err := SetInFile(path, "apiKey", "sk-secret"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("file holding apiKey has mode %v, want 0600", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

// TestSetFollowsSymlink: a config file linked from a dotfiles repository
// stays a link, and the repository's file gets the change.
func TestSetFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "olly.yaml")
	writeFile(t, real, "baseUrl: http://x:1\n")
	link := filepath.Join(dir, "config", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := SetInFile(link, "agent.maxIterations", "9"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced by a file")
	}
	data, _ := os.ReadFile(real)
	if !strings.Contains(string(data), "maxIterations: 9") {
		t.Errorf("target not updated:\n%s", data)
	}
}

func TestUnsetMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.yaml")
	removed, err := UnsetInFile(path, "baseUrl")
	if err != nil || removed {
		t.Fatalf("removed=%v err=%v", removed, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Error("unset created a file")
	}
	if _, err := UnsetInFile(path, "nonsense.key"); err == nil {
		t.Error("unset of an unknown key that is not in the file should say the key is unknown")
	}
}

// TestUnsafeEditRefused: when the only way to make an edit would change
// other settings (odd YAML the encoder cannot reproduce), the file is left
// alone and the error says to edit it by hand.
func TestUnsafeEditRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	const odd = "agent:  x\n&a : *a\nagent:\n  orchestratorTools: [\"7\"]\n"
	writeFile(t, path, odd)
	_, err := UnsetInFile(path, "agent.orchestratorTools")
	if !errors.Is(err, errUnsafeEdit) || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), "edit it by hand") {
		t.Fatalf("err = %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != odd {
		t.Errorf("file changed:\n%s", data)
	}
}

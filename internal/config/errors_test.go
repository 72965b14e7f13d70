package config

import (
	"errors"
	"strings"
	"testing"
)

// TestFileErrors pins the exact message for every kind of bad file: each
// names the file and line, the key, and what would be right.
func TestFileErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		kind ErrorKind
		want string // after "<path>:"
	}{
		{"unknown key, typo", "agent:\n  maxIteration: 30\n", ErrUnknownKey,
			`2: unknown key "agent.maxIteration" (did you mean agent.maxIterations?)`},
		{"unknown key, far from any", "frobnicate: 1\n", ErrUnknownKey,
			"1: unknown key \"frobnicate\" (`olly config list` shows every key)"},
		{"unknown group, typo", "agnt:\n  toolTimeout: 5s\n", ErrUnknownKey,
			`2: unknown key "agnt.toolTimeout" (did you mean agent.toolTimeout?)`},
		{"seed prefix", "ollamaCopilot.agent.maxIterations: 3\n", ErrUnknownKey,
			`1: unknown key "ollamaCopilot.agent.maxIterations" (did you mean agent.maxIterations?)`},
		{"missing group", "# x\nmaxIterations: 3\n", ErrUnknownKey,
			`2: unknown key "maxIterations" (did you mean agent.maxIterations?)`},
		{"wrong case", "BaseURL: http://x\n", ErrUnknownKey,
			`1: unknown key "BaseURL" (did you mean baseUrl?)`},
		{"renamed askMode", "askMode:\n  model: llama3\n", ErrRenamedKey,
			`2: askMode.model: the askMode.* settings were renamed to chatMode.* — write chatMode.model instead`},
		{"renamed editMode dotted", "editMode.temperature: 0.2\n", ErrRenamedKey,
			`1: editMode.temperature: the editMode.* settings were renamed to chatMode.* — write chatMode.temperature instead`},
		{"string for int", "agent:\n  maxIterations: lots\n", ErrType,
			`2: agent.maxIterations: expected an integer from 1 to 1000, got the string "lots"`},
		{"quoted int", "agent.maxIterations: \"30\"\n", ErrType,
			`1: agent.maxIterations: expected an integer from 1 to 1000, got the string "30"`},
		{"int too big", "agent.maxIterations: 5000\n", ErrRange,
			`1: agent.maxIterations: 5000 is out of range: expected an integer from 1 to 1000`},
		{"int overflow", "agent.maxIterations: 99999999999999999999999\n", ErrType,
			`1: agent.maxIterations: expected an integer from 1 to 1000, got 99999999999999999999999`},
		{"float out of range", "chatMode:\n  temperature: 2.5\n", ErrRange,
			`2: chatMode.temperature: 2.5 is out of range: expected a number from 0 to 2`},
		{"per-mode range", "completionMode.maxTokens: 8192\n", ErrRange,
			`1: completionMode.maxTokens: 8192 is out of range: expected an integer from 50 to 4096`},
		{"bad enum", "agent:\n  continuationStrategy: fast\n", ErrEnum,
			`2: agent.continuationStrategy: "fast" is not allowed: expected one of full, standard, minimal`},
		{"bad provider", "provider: anthropic\n", ErrEnum,
			`1: provider: "anthropic" is not allowed: expected one of ollama, openai`},
		{"yes is not a boolean", "agent.enableThinking: yes\n", ErrType,
			`1: agent.enableThinking: expected true or false, got the string "yes"`},
		{"duration too short", "agent.toolTimeout: 1000\n", ErrRange,
			`1: agent.toolTimeout: 1s is out of range: expected a duration from 5s to 5m (a number of milliseconds, or a value with a unit such as 45s or 2m)`},
		{"duration garbage", "agent.toolTimeout: soon\n", ErrType,
			`1: agent.toolTimeout: expected a duration from 5s to 5m (a number of milliseconds, or a value with a unit such as 45s or 2m), got "soon"`},
		{"keepAlive garbage", "agent.keepAlive: forever\n", ErrInvalid,
			`1: agent.keepAlive: "forever" is not valid: expected a duration such as 5m or 30m, a number of seconds, -1 (for ever), 0 (unload at once), or empty (server default)`},
		{"url without scheme", "baseUrl: localhost:11434\n", ErrInvalid,
			`1: baseUrl: "localhost:11434" is not valid: expected an http:// or https:// URL such as http://localhost:11434 (the scheme must be http or https)`},
		{"relative storagePath", "storagePath: data/olly\n", ErrInvalid,
			`1: storagePath: "data/olly" is not valid: expected an absolute path (relative paths would depend on where olly starts)`},
		{"tilde storagePath", "storagePath: ~/olly\n", ErrInvalid,
			`1: storagePath: "~/olly" is not valid: expected an absolute path (relative paths would depend on where olly starts); ~ is not expanded, write the full path`},
		{"scalar for list", "agent.orchestratorTools: write_file\n", ErrType,
			`1: agent.orchestratorTools: expected a list such as [a, b] (or a,b in a variable or flag) with at least 1 item(s), got the string "write_file"`},
		{"empty list", "agent.orchestratorTools: []\n", ErrRange,
			`1: agent.orchestratorTools: the list has 0 items: expected a list such as [a, b] (or a,b in a variable or flag) with at least 1 item(s)`},
		{"list with a nested list", "agent.orchestratorTools:\n  - write_file\n  - [a]\n", ErrType,
			`3: agent.orchestratorTools: item 2: expected a non-empty name, got a list`},
		{"null value", "agentMode:\n  model:\n", ErrType,
			`2: agentMode.model: no value: write one ("" for an empty string), or delete the line to use the default`},
		{"group given a value", "agent: 5\n", ErrType,
			`1: agent: agent is a group of settings: expected a mapping (agent:, then indented keys, or dotted keys such as agent.maxIterations), got 5`},
		{"mapping for a scalar", "baseUrl:\n  host: x\n", ErrType,
			`1: baseUrl: expected an http:// or https:// URL such as http://localhost:11434, got a mapping`},
		{"set twice", "agent.maxIterations: 3\nagent:\n  maxIterations: 4\n", ErrDuplicate,
			`3: agent.maxIterations: set twice in this file (first at line 1); keep one`},
		{"unclosed list", "agent:\n  maxIterations: 3\n  toolTimeout: [5s\n", ErrSyntax,
			"3: malformed YAML: did not find expected ',' or ']' (fix this line: settings are `key: value` pairs, nested with spaces (not tabs))"},
		{"bad indentation deep in the file", "baseUrl: http://x\nagent:\n  maxIterations: 3\n  toolTimeout: 5s\n keepAlive: 5m\n", ErrSyntax,
			"5: malformed YAML: did not find expected key (fix this line: settings are `key: value` pairs, nested with spaces (not tabs))"},
		{"bad indentation after a multi-line list", "agent:\n  orchestratorTools: [a,\n    b]\n  maxIterations: 3\n    toolTimeout: 5s\n", ErrSyntax,
			"5: malformed YAML: mapping values are not allowed in this context"},
		{"tab indentation", "agent:\n\tmaxIterations: 3\n", ErrSyntax,
			"2: malformed YAML: found character that cannot start any token (fix this line: settings are `key: value` pairs, nested with spaces (not tabs))"},
		{"error on the first line", "baseUrl: a: b\n", ErrSyntax,
			"1: malformed YAML: mapping values are not allowed in this context (fix this line: settings are `key: value` pairs, nested with spaces (not tabs))"},
		{"control character", "baseUrl: http://x\nmodel: \x01\n", ErrSyntax,
			"2: malformed YAML: control characters are not allowed (the file must be UTF-8 text; remove the stray bytes on this line)"},
		{"invalid UTF-8", "a: 1\nb: 2\nc: \xff\n", ErrSyntax,
			"3: malformed YAML: invalid leading UTF-8 octet (the file must be UTF-8 text; remove the stray bytes on this line)"},
		{"second document", "agent.maxIterations: 3\n---\nbaseUrl: http://x\n", ErrSyntax,
			"2: a second YAML document (after ---): olly reads one document per file; merge them into one"},
		{"top level list", "- baseUrl\n", ErrType,
			"1: expected a mapping of settings (key: value lines) at the top of the file, got a list"},
		{"merge key", "agent:\n  <<: {maxIterations: 3}\n", ErrType,
			"2: YAML merge keys (<<) are not supported: write the settings out"},
		{"complex key", "? [a, b]\n: 1\n", ErrType,
			"1: a key must be a plain name such as agent.maxIterations, got a list"},
		{"self-containing alias", "agent: &a\n  x: *a\n", ErrType,
			"1: settings nested too deeply"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			path := globalPath(home)
			writeFile(t, path, tt.file)
			_, err := Load(LoadOptions{Home: home})
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("err = %v, want a *LoadError", err)
			}
			first := le.Errors[0]
			if first.Kind != tt.kind {
				t.Errorf("kind = %d, want %d", first.Kind, tt.kind)
			}
			if got, want := first.Error(), path+":"+tt.want; !strings.HasPrefix(got, want) {
				t.Errorf("error =\n  %s\nwant\n  %s", got, want)
			}
			if !strings.Contains(err.Error(), "olly config path") {
				t.Errorf("error lacks the hint: %v", err)
			}
		})
	}
}

func TestEnvAndFlagErrors(t *testing.T) {
	tests := []struct {
		name  string
		env   []string
		flags []FlagValue
		want  string
	}{
		{"bad env int", []string{"OLLY_AGENT_MAX_ITERATIONS=lots"}, nil,
			`env OLLY_AGENT_MAX_ITERATIONS: agent.maxIterations: expected an integer from 1 to 1000, got "lots"`},
		{"empty env int", []string{"OLLY_AGENT_MAX_ITERATIONS="}, nil,
			`env OLLY_AGENT_MAX_ITERATIONS: agent.maxIterations: expected an integer from 1 to 1000, got ""`},
		{"env out of range", []string{"OLLY_CONTEXT_WINDOW=100"}, nil,
			`env OLLY_CONTEXT_WINDOW: contextWindow: 100 is out of range: expected an integer from 2048 to 1048576`},
		{"env bad bool", []string{"OLLY_ENABLE_AUTO_COMPLETE=maybe"}, nil,
			`env OLLY_ENABLE_AUTO_COMPLETE: enableAutoComplete: expected true or false, got "maybe"`},
		{"env renamed", []string{"OLLY_ASK_MODE_MODEL=x"}, nil,
			`env OLLY_ASK_MODE_MODEL: askMode.model is renamed to chatMode.model (the askMode.*/editMode.* settings were renamed to chatMode.*): set OLLY_CHAT_MODE_MODEL instead`},
		{"env rules", []string{`OLLY_AGENT_SENSITIVE_FILE_PATTERNS={"**/*": maybe}`}, nil,
			`env OLLY_AGENT_SENSITIVE_FILE_PATTERNS: agent.sensitiveFilePatterns: pattern "**/*": action must be ask or auto`},
		{"env list with empty item", []string{"OLLY_AGENT_ORCHESTRATOR_TOOLS=a,,b"}, nil,
			`env OLLY_AGENT_ORCHESTRATOR_TOOLS: agent.orchestratorTools: item 2 is empty`},
		{"flag unknown key", nil, []FlagValue{{Flag: "--set", Key: "agent.maxIteratons", Value: "3"}},
			`flag --set: unknown key "agent.maxIteratons" (did you mean agent.maxIterations?)`},
		{"flag bad url", nil, []FlagValue{{Flag: "--base-url", Key: "baseUrl", Value: "gpu-box"}},
			`flag --base-url: baseUrl: "gpu-box" is not valid: expected an http:// or https:// URL`},
		{"flag bad duration", nil, []FlagValue{{Flag: "--set", Key: "agent.toolTimeout", Value: "10h"}},
			`flag --set: agent.toolTimeout: 10h is out of range`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(LoadOptions{Home: t.TempDir(), Environ: tt.env, Flags: tt.flags})
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err =\n  %v\nwant prefix\n  %s", err, tt.want)
			}
		})
	}
}

// TestAllProblemsAtOnce: one load reports every problem in every layer, so
// a person fixes them in one pass.
func TestAllProblemsAtOnce(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	writeFile(t, globalPath(home), "agent:\n  maxIterations: 0\n  toolTimeout: 1\nfrobnicate: 1\n")
	writeFile(t, projectPath(ws), "provider: x\n")
	_, err := Load(LoadOptions{Home: home, Workspace: ws, Environ: []string{"OLLY_BASE_URL=nope", "OLLY_NOT_A_SETTING=1"}})
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("err = %v", err)
	}
	// The project file's forbidden key is a warning, not an error (a
	// cloned repository must not lock the user out).
	if len(le.Errors) != 4 {
		t.Fatalf("%d errors, want 4:\n%v", len(le.Errors), err)
	}
	if !strings.HasPrefix(err.Error(), "4 problems in olly's settings:\n  "+globalPath(home)+":2: agent.maxIterations") {
		t.Errorf("message:\n%v", err)
	}
	// In file order, though the unknown key is found before the bad values.
	for i, line := range []int{2, 3, 4} {
		if got := le.Errors[i].Source.Line; got != line {
			t.Errorf("error %d is at line %d, want %d", i, got, line)
		}
	}
	if len(le.Warnings) != 2 || !strings.Contains(strings.Join(le.Warnings, "\n"), projectPath(ws)+":1: provider may not be set") {
		t.Errorf("warnings = %q, want the ignored project key and the unknown variable", le.Warnings)
	}
	var ce *Error
	if !errors.As(err, &ce) || ce.Source.Line != 2 {
		t.Errorf("errors.As found %+v", ce)
	}
}

func TestManyProblemsAreCapped(t *testing.T) {
	home := t.TempDir()
	var b strings.Builder
	for i := range 500 {
		b.WriteString("k")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(string(rune('a'+i%26)) + string(rune('a'+i/26)) + ": 1\n")
	}
	writeFile(t, globalPath(home), b.String())
	_, err := Load(LoadOptions{Home: home})
	var le *LoadError
	if !errors.As(err, &le) || len(le.Errors) != maxFileProblems {
		t.Fatalf("got %v", err)
	}
	if lines := strings.Count(err.Error(), "\n"); lines > maxReported+3 {
		t.Errorf("message has %d lines", lines)
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"maxiterations", "maxiteration", 1}, {"é", "e", 1},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestCheckKey(t *testing.T) {
	if err := CheckKey("agent.maxIterations"); err != nil {
		t.Fatal(err)
	}
	var ce *Error
	if err := CheckKey("agent.maxIteration"); !errors.As(err, &ce) || ce.Suggestion != "agent.maxIterations" {
		t.Fatalf("err = %v", err)
	}
	if err := CheckKey("askMode.model"); !errors.As(err, &ce) || ce.Kind != ErrRenamedKey || ce.Suggestion != "chatMode.model" {
		t.Fatalf("err = %v", err)
	}
}

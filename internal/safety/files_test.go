package safety

import (
	"errors"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/config"
)

func TestEvaluateFileDefaults(t *testing.T) {
	rules := config.DefaultFileRules()
	cases := []struct {
		path    string
		want    config.FileAction
		pattern string
	}{
		{"main.go", config.FileAuto, "**/*"},
		{"internal/app/app.go", config.FileAuto, "**/*"},
		{"README.md", config.FileAuto, "**/*"},
		{"./src/main.go", config.FileAuto, "**/*"},
		{".env", config.FileAsk, "**/.env*"},
		{"config/.env.production", config.FileAsk, "**/.env*"},
		{"a/b/.env.local", config.FileAsk, "**/.env*"},
		{".environment", config.FileAsk, "**/.env*"}, // the seed's pattern is a prefix
		{"envfile.txt", config.FileAuto, "**/*"},
		{"package.json", config.FileAsk, "**/package.json"},
		{"src/package.json", config.FileAsk, "**/package.json"},
		{`web\package.json`, config.FileAsk, "**/package.json"}, // Windows separators
		{"package-lock.json", config.FileAsk, "**/package-lock.json"},
		{"src/package.json.bak", config.FileAuto, "**/*"},
		{".github/workflows/ci.yml", config.FileAsk, "**/.github/workflows/*"},
		{".github/dependabot.yml", config.FileAuto, "**/*"},
		{".vscode/settings.json", config.FileAsk, "**/.vscode/*.json"},
		{"id_rsa", config.FileAsk, "**/id_rsa*"},
		{"keys/id_rsa.pub", config.FileAsk, "**/id_rsa*"},
		{"deploy/id_ed25519", config.FileAsk, "**/id_ed25519*"},
		{"certs/server.pem", config.FileAsk, "**/*.pem"},
		{"tls.key", config.FileAsk, "**/*.key"},
		{"Dockerfile", config.FileAsk, "**/Dockerfile"},
		{"deploy/docker-compose.override.yml", config.FileAsk, "**/docker-compose*.yml"},
		{"tsconfig.json", config.FileAsk, "**/tsconfig.json"},
		{"go.mod", config.FileAsk, "**/go.mod"},
		{"tools/go.sum", config.FileAsk, "**/go.sum"},
		{"app.secrets.json", config.FileAsk, "**/*.secrets.*"},
		{".npmrc", config.FileAsk, "**/.npmrc"},
		{".gitlab-ci.yml", config.FileAsk, "**/.gitlab-ci.yml"},
		{".olly/config.yaml", config.FileAsk, "**/.olly/config.yaml"},
		{"Cargo.lock", config.FileAsk, "**/Cargo.lock"},
		{"Cargo.toml", config.FileAuto, "**/*"},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			got, matched := EvaluateFile(tc.path, rules)
			if got != tc.want {
				t.Errorf("action = %q, want %q", got, tc.want)
			}
			if matched == nil || matched.Pattern != tc.pattern {
				t.Errorf("matched = %+v, want pattern %q", matched, tc.pattern)
			}
		})
	}
}

func TestEvaluateFileLastMatchWins(t *testing.T) {
	json := []config.FileRule{{Pattern: "**/*.json", Action: config.FileAsk}, {Pattern: "config/*.json", Action: config.FileAuto}}
	reversed := []config.FileRule{json[1], json[0]}
	catchAllLast := []config.FileRule{{Pattern: "**/.env*", Action: config.FileAsk}, {Pattern: "**/*", Action: config.FileAuto}}
	cases := []struct {
		name    string
		rules   []config.FileRule
		path    string
		want    config.FileAction
		matched int // index into rules, -1 for none
	}{
		{"later specific rule wins", json, "config/app.json", config.FileAuto, 1},
		{"earlier rule still applies elsewhere", json, "data/app.json", config.FileAsk, 0},
		{"order reversed", reversed, "config/app.json", config.FileAsk, 1},
		{"catch-all last overrides everything", catchAllLast, ".env", config.FileAuto, 1},
		{"no rules at all asks", nil, "main.go", config.FileAsk, -1},
		{"no rule matches asks", []config.FileRule{{Pattern: "**/*.go", Action: config.FileAuto}}, "README.md", config.FileAsk, -1},
		{"unknown action asks", []config.FileRule{{Pattern: "**/*", Action: "yes"}}, "main.go", config.FileAsk, 0},
		{"invalid ask pattern matches everything", []config.FileRule{{Pattern: "**/*", Action: config.FileAuto}, {Pattern: "src/[unclosed", Action: config.FileAsk}}, "main.go", config.FileAsk, 1},
		{"invalid auto pattern matches nothing", []config.FileRule{{Pattern: "**/*", Action: config.FileAsk}, {Pattern: "{a,b", Action: config.FileAuto}}, "a", config.FileAsk, 0},
		{"brace alternatives", []config.FileRule{{Pattern: "**/*.{pem,crt}", Action: config.FileAsk}}, "x/y.crt", config.FileAsk, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, matched := EvaluateFile(tc.path, tc.rules)
			if got != tc.want {
				t.Errorf("action = %q, want %q", got, tc.want)
			}
			switch {
			case tc.matched < 0 && matched != nil:
				t.Errorf("matched = %+v, want none", matched)
			case tc.matched >= 0 && matched != &tc.rules[tc.matched]:
				t.Errorf("matched = %+v, want rule %d %+v", matched, tc.matched, tc.rules[tc.matched])
			}
		})
	}
}

func TestEvaluateFileFold(t *testing.T) {
	rules := config.DefaultFileRules()
	for _, p := range []string{".ENV", "Config/.Env.Local", "SRC/Package.JSON", ".GitHub/Workflows/CI.yml"} {
		if got, _ := EvaluateFile(p, rules); got != config.FileAuto {
			t.Errorf("EvaluateFile(%q) = %q: case-sensitive matching should not match", p, got)
		}
		if got, _ := EvaluateFileFold(p, rules); got != config.FileAsk {
			t.Errorf("EvaluateFileFold(%q) = %q, want ask", p, got)
		}
	}
}

func TestLayerFileRules(t *testing.T) {
	global := config.DefaultFileRules()
	session := []config.FileRule{
		{Pattern: "**/.env.example", Action: config.FileAuto}, // the person trusts the example file
		{Pattern: "internal/**", Action: config.FileAsk},      // and wants to see every edit here
	}
	layered := LayerFileRules(global, session)
	cases := []struct {
		path string
		want config.FileAction
	}{
		{".env.example", config.FileAuto},
		{".env", config.FileAsk},
		{"internal/app/app.go", config.FileAsk},
		{"cmd/olly/main.go", config.FileAuto},
		{"package.json", config.FileAsk},
	}
	for _, tc := range cases {
		if got, _ := EvaluateFile(tc.path, layered); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.path, got, tc.want)
		}
	}
	if len(layered) != len(global)+len(session) {
		t.Fatalf("layered has %d rules, want %d", len(layered), len(global)+len(session))
	}
	layered[0].Action = config.FileAsk
	if global[0].Action != config.FileAuto {
		t.Error("LayerFileRules shares its result with the global rules")
	}
	if got := LayerFileRules(nil, nil); got == nil || len(got) != 0 {
		t.Errorf("LayerFileRules(nil, nil) = %#v, want empty", got)
	}
}

func TestValidateFileRules(t *testing.T) {
	if err := ValidateFileRules(config.DefaultFileRules()); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	err := ValidateFileRules([]config.FileRule{
		{Pattern: "**/*", Action: config.FileAuto},
		{Pattern: "src/[abc", Action: config.FileAsk},
		{Pattern: " ", Action: config.FileAsk},
		{Pattern: "**/*.go", Action: "true"},
	})
	if err == nil {
		t.Fatal("no error for broken rules")
	}
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) || len(joined.Unwrap()) != 3 {
		t.Fatalf("want 3 joined errors, got %v", err)
	}
	for _, want := range []string{`rule 2 (pattern "src/[abc")`, "not a valid glob", "rule 3", "empty", `rule 4 (pattern "**/*.go")`, `action "true"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %q:\n%v", want, err)
		}
	}
}

// FuzzEvaluateFile: any pattern and path, never a panic, and the answer is
// always one of the two actions with a rule from the list (or none).
func FuzzEvaluateFile(f *testing.F) {
	for _, s := range [][2]string{{"**/.env*", ".env"}, {"[", "a"}, {"{a,b", "a"}, {`\`, `\`}, {"**/**/*", "a/b/c"}, {"", ""}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, rel string) {
		for _, act := range []config.FileAction{config.FileAsk, config.FileAuto} {
			rules := []config.FileRule{{Pattern: "**/*", Action: config.FileAuto}, {Pattern: pattern, Action: act}}
			for _, eval := range []func(string, []config.FileRule) (config.FileAction, *config.FileRule){EvaluateFile, EvaluateFileFold} {
				got, matched := eval(rel, rules)
				if got != config.FileAsk && got != config.FileAuto {
					t.Fatalf("action %q", got)
				}
				if matched != nil && matched != &rules[0] && matched != &rules[1] {
					t.Fatalf("matched %p is not a rule of the list", matched)
				}
				if act == config.FileAsk && ValidateFileRules(rules) != nil && got != config.FileAsk {
					t.Fatalf("invalid ask pattern %q let %q through", pattern, rel)
				}
			}
		}
	})
}

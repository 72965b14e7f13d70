package config

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated parts of docs/configuration.md")

const docsPath = "../../docs/configuration.md"

// TestDocsReference keeps the reference tables in docs/configuration.md
// equal to the keys declared in Settings. After adding a key, run
// `go test ./internal/config -run TestDocsReference -update`.
func TestDocsReference(t *testing.T) {
	data, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, part := range []struct{ name, body string }{
		{"keys", keysTable()},
		{"default-rules", defaultRulesBlock()},
	} {
		updated, err := replaceGenerated(doc, part.name, part.body)
		if err != nil {
			t.Fatal(err)
		}
		if updated != doc && !*update {
			t.Errorf("docs/configuration.md: the %q section is out of date; run go test ./internal/config -run TestDocsReference -update", part.name)
		}
		doc = updated
	}
	if *update && doc != string(data) {
		if err := os.WriteFile(docsPath, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func replaceGenerated(doc, name, body string) (string, error) {
	begin := fmt.Sprintf("<!-- generated:%s:begin (go test ./internal/config -run TestDocsReference -update) -->\n", name)
	end := fmt.Sprintf("<!-- generated:%s:end -->", name)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("docs/configuration.md lacks the markers %q … %q", strings.TrimSpace(begin), end)
	}
	return doc[:i+len(begin)] + body + doc[j:], nil
}

func keysTable() string {
	var b strings.Builder
	b.WriteString("| Key | Type | Default | Range / values | Environment variable | What it does |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, k := range Keys() {
		values := k.Range
		if len(k.Enum) > 0 {
			values = "`" + strings.Join(k.Enum, "`, `") + "`"
		}
		def := "`" + k.Default + "`"
		if k.Default == "" {
			def = "`\"\"`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | `%s` | %s |\n", k.Key, k.Type, def, values, k.Env, escapeCell(k.Doc))
	}
	return b.String()
}

func defaultRulesBlock() string {
	var b strings.Builder
	b.WriteString("```yaml\nagent:\n  sensitiveFilePatterns:\n")
	for _, r := range DefaultFileRules() {
		fmt.Fprintf(&b, "    %q: %s\n", r.Pattern, r.Action)
	}
	b.WriteString("```\n")
	return b.String()
}

func escapeCell(s string) string {
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;").Replace(s)
}

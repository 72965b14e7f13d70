package agent

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/toolcall"
)

var updatePrompts = flag.Bool("update", false, "rewrite the golden files under testdata/prompts")

// promptDialects are the dialects a text-mode prompt can ask for: "" (none
// recognised, olly's own <tool_call> JSON) and every one TemplateDialect
// returns.
var promptDialects = []toolcall.Format{"", toolcall.FormatXML, toolcall.FormatFunction, toolcall.FormatBracket, toolcall.FormatBracketArgs,
	toolcall.FormatDeepSeek, toolcall.FormatKimi, toolcall.FormatGLM, toolcall.FormatInvoke, toolcall.FormatToolCode, toolcall.FormatBare}

// TestTextToolsPromptPerDialect renders the explore mode's text-tools
// section (CALLING TOOLS, up to the tool descriptions) for each dialect and
// compares it with testdata/prompts/text_tools_<dialect>.golden. The
// example call in it must read back, with the dialect preferred, as the
// read_file call it shows.
func TestTextToolsPromptPerDialect(t *testing.T) {
	a, err := New(Deps{Provider: &memProvider{}, Tools: allTools(t), Config: Config{Model: "m", Tools: orchestratorTools()}})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range promptDialects {
		name := string(d)
		if name == "" {
			name = "none"
		}
		t.Run(name, func(t *testing.T) {
			r := detachedRunIn(t, a, t.TempDir(), event.ModeExplore, "the task")
			r.req.format, r.req.dialect = session.FormatText, d
			out, err := r.systemPrompt()
			if err != nil {
				t.Fatal(err)
			}
			start, end := strings.Index(out, "CALLING TOOLS"), strings.Index(out, "\nAVAILABLE TOOLS\n")
			if start < 0 || end < start || !strings.Contains(out[end:], "### read_file") {
				t.Fatalf("no CALLING TOOLS section followed by the tool descriptions in:\n%s", out)
			}
			section := out[start:end] + "\n"
			golden := filepath.Join("testdata", "prompts", "text_tools_"+name+".golden")
			if *updatePrompts {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(section), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if section != string(want) {
				t.Errorf("the section differs from %s:\n%s", golden, section)
			}
			example, _, _ := strings.Cut(strings.SplitN(section, "format:\n", 2)[1], "\n\n")
			calls := toolcall.Extract(example, toolcall.Options{Known: r.offered, Prefer: d})
			if len(calls) != 1 || calls[0].Name != "read_file" || calls[0].Problem != "" || string(calls[0].Arguments) != `{"path":"src/main.go"}` {
				t.Errorf("the example reads as %+v, want one read_file of src/main.go", calls)
			}
		})
	}
}

package toolcall

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTemplateDialectGolden reads the hand-written chat templates under
// testdata/templates (one per family, in Ollama's template language, plus
// templates without tool markup) and compares the dialect recognised in
// each with testdata/templates/dialects.golden.
func TestTemplateDialectGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/templates/*.tmpl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no templates: %v", err)
	}
	got := map[string]Format{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got[strings.TrimSuffix(filepath.Base(f), ".tmpl")] = TemplateDialect(string(raw))
	}
	out, _ := json.MarshalIndent(got, "", "  ")
	out = append(out, '\n')
	golden := "testdata/templates/dialects.golden"
	if *updateGolden {
		if err := os.WriteFile(golden, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != string(out) {
		t.Errorf("dialects differ from %s:\ngot  %s\nwant %s", golden, out, want)
	}
	// Every dialect the parsers know is recognised from some template.
	seen := map[Format]bool{}
	for _, d := range got {
		seen[d] = true
	}
	for _, d := range dialectMarkers {
		if !seen[d.format] {
			t.Errorf("no template under testdata/templates is recognised as %s", d.format)
		}
	}
	if !seen[""] {
		t.Error("no template under testdata/templates is without a dialect")
	}
}

func TestParseDialect(t *testing.T) {
	for _, d := range dialectMarkers {
		if f, ok := ParseDialect(string(d.format)); !ok || f != d.format {
			t.Errorf("ParseDialect(%q) = %q, %v", d.format, f, ok)
		}
	}
	for _, s := range []string{"fence", "XML", "qwen", " glm"} {
		if _, ok := ParseDialect(s); ok {
			t.Errorf("ParseDialect(%q) accepted it", s)
		}
	}
	if f, ok := ParseDialect(""); !ok || f != "" {
		t.Errorf(`ParseDialect("") = %q, %v`, f, ok)
	}
}

// FuzzTemplateDialect: any template gives a dialect ParseDialect accepts,
// and a dialect only when the template holds one of its markers.
func FuzzTemplateDialect(f *testing.F) {
	files, _ := filepath.Glob("testdata/templates/*.tmpl")
	for _, file := range files {
		if raw, err := os.ReadFile(file); err == nil {
			f.Add(string(raw))
		}
	}
	f.Add("<tool_call>\n<arg_key")
	f.Add("<｜tool▁sep")
	f.Fuzz(func(t *testing.T, tmpl string) {
		d := TemplateDialect(tmpl)
		if _, ok := ParseDialect(string(d)); !ok {
			t.Fatalf("TemplateDialect gave %q, which ParseDialect refuses", d)
		}
		if d == "" {
			return
		}
		found := false
		for _, m := range dialectMarkers {
			if m.format != d {
				continue
			}
			for _, s := range m.any {
				found = found || strings.Contains(tmpl, s)
			}
		}
		if !found {
			t.Fatalf("dialect %q without any of its markers in %q", d, tmpl)
		}
	})
}

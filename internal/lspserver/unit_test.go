package lspserver

import (
	"strings"
	"testing"
)

func TestFamilies(t *testing.T) {
	cases := []struct {
		model, family, prompt string
	}{
		{"qwen2.5-coder:7b", "qwen2.5-coder", "<|fim_prefix|>P<|fim_suffix|>S<|fim_middle|>"},
		{"hf.co/bartowski/Qwen2.5-Coder-1.5B-GGUF:Q4_K_M", "qwen2.5-coder", "<|fim_prefix|>P<|fim_suffix|>S<|fim_middle|>"},
		{"codellama:7b-code", "codellama", "<PRE> P <SUF>S <MID>"},
		{"deepseek-coder:6.7b-base", "deepseek-coder", "<｜fim▁begin｜>P<｜fim▁hole｜>S<｜fim▁end｜>"},
		{"deepseek-coder-v2:16b", "deepseek-coder", "<｜fim▁begin｜>P<｜fim▁hole｜>S<｜fim▁end｜>"},
		{"starcoder2:3b", "starcoder2", "<fim_prefix>P<fim_suffix>S<fim_middle>"},
		{"codestral:22b", "codestral", "[SUFFIX]S[PREFIX]P"},
		{"qwen3:8b", "", ""},
		{"llama3.2", "", ""},
	}
	for _, tc := range cases {
		f := FamilyOf(tc.model)
		if tc.family == "" {
			if f != nil {
				t.Errorf("%s: family %s, want none", tc.model, f.Name)
			}
			continue
		}
		if f == nil || f.Name != tc.family {
			t.Errorf("%s: family %v, want %s", tc.model, f, tc.family)
			continue
		}
		if got := f.Prompt("P", "S"); got != tc.prompt {
			t.Errorf("%s: prompt %q, want %q", tc.model, got, tc.prompt)
		}
		for _, tok := range []string{f.Prefix, f.Suffix, f.Middle} {
			if tok = strings.TrimSpace(tok); tok != "" && !contains(f.Stop, tok) {
				t.Errorf("%s: sentinel %q is not a stop sequence", tc.family, tok)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestClean(t *testing.T) {
	cases := []struct {
		name, out, linePrefix, lineRest, suffix, want string
	}{
		{"multi-line kept", "if x {\n\t\treturn\n\t}\n\treturn y", "\t", "", "\n}\n", "if x {\n\t\treturn\n\t}\n\treturn y"},
		{"repeated closing line cut", "return 1\n}\n\nfunc g() {", "\t", "", "\n}\n\nfunc g() {}\n", "return 1"},
		{"inner brace is not the suffix's", "for {\n\t}", "\t", "", "\n}\n", "for {\n\t}"},
		{"leaked token", "x := 1<|endoftext|>garbage", "\t", "", "\n}", "x := 1"},
		{"leaked token of another family", "x<fim_middle>y", "", "", "", "x"},
		{"HTML is not a token", "<s>old</s> new", "", "", "", "<s>old</s> new"},
		{"mid-line: one line", "a, b)\nmore", "f(", ")", ")\n", "a, b"},
		{"mid-line: rest not repeated", "a, b", "f(", ")", ")\n", "a, b"},
		{"trailing blank space", "x := 1  \n\n", "\t", "", "\n}", "x := 1"},
		{"only the suffix", "}\n", "", "", "}\n", ""},
	}
	for _, tc := range cases {
		p := &prompt{linePrefix: tc.linePrefix, lineRest: tc.lineRest, suffix: tc.suffix, multiLine: strings.TrimSpace(tc.lineRest) == ""}
		if got := clean(tc.out, p); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestWindows(t *testing.T) {
	text := "line1\nline2\nline3\nline4\n"
	cases := []struct {
		name             string
		off, pre, suf    int
		wantPre, wantSuf string
	}{
		{"all", 12, 100, 100, "line1\nline2\n", "line3\nline4\n"},
		{"prefix cut to whole lines", 14, 5, 100, "li", "ne3\nline4\n"},
		{"prefix cut mid-line drops the half line", 14, 10, 0, "line2\nli", ""},
		{"suffix cut to whole lines", 12, 0, 8, "", "line3\n"},
		{"suffix within one line", 12, 0, 3, "", "lin"},
	}
	for _, tc := range cases {
		pre, suf := windows(text, tc.off, tc.pre, tc.suf)
		if pre != tc.wantPre || suf != tc.wantSuf {
			t.Errorf("%s: %q %q, want %q %q", tc.name, pre, suf, tc.wantPre, tc.wantSuf)
		}
	}
	// Never a broken rune.
	pre, suf := windows("ééé", 2, 1, 1)
	if pre != "" || suf != "" {
		t.Errorf("runes: %q %q", pre, suf)
	}
}

func TestReplacementOf(t *testing.T) {
	cases := []struct{ out, sel, want string }{
		{"```go\n\treturn 2\n```", "\treturn 1\n", "\treturn 2\n"},
		{"return 2", "\treturn 1\n", "\treturn 2\n"},
		{"  x", "x", "x"},
		{"a\nb", "c", "a\nb"},
	}
	for _, tc := range cases {
		if got := replacementOf(tc.out, tc.sel); got != tc.want {
			t.Errorf("replacementOf(%q, %q) = %q, want %q", tc.out, tc.sel, got, tc.want)
		}
	}
}

func TestDocumentRangeChanges(t *testing.T) {
	d := &document{}
	d.set(1, "hello world\n")
	err := d.apply(2, []contentChange{{Range: rangeOf(0, 6, 0, 11), Text: "olly"}, {Range: rangeOf(0, 0, 0, 0), Text: "> "}})
	if err != nil || d.text != "> hello olly\n" || d.version != 2 {
		t.Errorf("%q %v", d.text, err)
	}
	if err := d.apply(3, []contentChange{{Range: rangeOf(9, 0, 9, 1), Text: "x"}}); err == nil {
		t.Error("a range past the end was applied")
	}
}

package lspserver

import "strings"

// Family is a model family's fill-in-the-middle format: the special tokens
// its base model was trained with, for models whose Ollama template has no
// suffix support (no "insert" capability), which then get a raw prompt.
type Family struct {
	// Name is the family as it appears in model names ("qwen2.5-coder").
	Name string
	// match are the lower-case substrings of a model name that select the
	// family.
	match []string
	// Prefix, Suffix and Middle are the sentinel tokens; SuffixFirst puts
	// the suffix part before the prefix part (Mistral's Codestral).
	Prefix, Suffix, Middle string
	SuffixFirst            bool
	// Stop are the tokens that end a middle: the end of text and every
	// sentinel, which a model that runs on would otherwise print.
	Stop []string
}

// Prompt renders the raw fill-in-the-middle prompt.
func (f *Family) Prompt(prefix, suffix string) string {
	if f.SuffixFirst {
		return f.Suffix + suffix + f.Prefix + prefix
	}
	return f.Prefix + prefix + f.Suffix + suffix + f.Middle
}

// families are the FIM formats olly knows, from each family's model card
// and tokenizer (checked against the Ollama library's templates, which use
// the same tokens when they support a suffix).
var families = []*Family{
	{
		Name: "qwen2.5-coder", match: []string{"qwen2.5-coder", "qwen2.5coder"},
		Prefix: "<|fim_prefix|>", Suffix: "<|fim_suffix|>", Middle: "<|fim_middle|>",
		Stop: []string{"<|endoftext|>", "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>", "<|im_start|>", "<|im_end|>"},
	},
	{
		// Ollama's codellama template: "<PRE> {{ .Prompt }} <SUF>{{ .Suffix }} <MID>".
		Name: "codellama", match: []string{"codellama", "code-llama"},
		Prefix: "<PRE> ", Suffix: " <SUF>", Middle: " <MID>",
		Stop: []string{"<EOT>", "<PRE>", "<SUF>", "<MID>", "</s>"},
	},
	{
		// The sentinels use U+FF5C (fullwidth vertical line) and U+2581
		// (lower one eighth block), not "|" and "_".
		Name: "deepseek-coder", match: []string{"deepseek-coder"},
		Prefix: "<｜fim▁begin｜>", Suffix: "<｜fim▁hole｜>", Middle: "<｜fim▁end｜>",
		Stop: []string{"<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>", "<｜end▁of▁sentence｜>", "<|EOT|>"},
	},
	{
		Name: "starcoder2", match: []string{"starcoder2", "starcoder"},
		Prefix: "<fim_prefix>", Suffix: "<fim_suffix>", Middle: "<fim_middle>",
		Stop: []string{"<|endoftext|>", "<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<file_sep>", "<repo_name>", "<filename>"},
	},
	{
		// Mistral's FIM order: the suffix first, the prefix last, and the
		// middle follows the prefix with no token of its own.
		Name: "codestral", match: []string{"codestral"},
		Prefix: "[PREFIX]", Suffix: "[SUFFIX]", SuffixFirst: true,
		Stop: []string{"[PREFIX]", "[SUFFIX]", "[MIDDLE]", "[INST]", "[/INST]", "</s>"},
	},
}

// FamilyOf returns the FIM format of a model by its name ("qwen2.5-coder:7b",
// "hf.co/bartowski/Qwen2.5-Coder-7B-GGUF"), or nil when olly knows none.
func FamilyOf(model string) *Family {
	name := strings.ToLower(model)
	for _, f := range families {
		for _, m := range f.match {
			if strings.Contains(name, m) {
				return f
			}
		}
	}
	return nil
}

// leakTokens are every family's sentinels: a model served through its
// template (the suffix path) or an unknown model can still print one, and
// nothing after it belongs in the document.
var leakTokens = func() []string {
	seen := map[string]bool{}
	var out []string
	add := func(t string) {
		t = strings.TrimSpace(t)
		// "</s>" is also HTML (strikethrough): as a stop sequence it ends
		// a codellama or codestral middle, but it is not cut elsewhere.
		if t != "" && t != "</s>" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, f := range families {
		add(f.Prefix)
		add(f.Suffix)
		add(f.Middle)
		for _, s := range f.Stop {
			add(s)
		}
	}
	return out
}()

package toolcall

import "strings"

// A model's chat template (Ollama's /api/show "template") writes the tool
// calls of earlier turns, and often the instructions for making one, in the
// markup the model was trained on. TemplateDialect reads that markup, so
// that a model without native tool calling can be asked for calls in its
// own dialect (the agent's system prompt) and its answers read with that
// dialect first (Options.Prefer).

// dialectMarker is text whose presence in a template identifies a dialect.
type dialectMarker struct {
	format Format
	any    []string // any one of them
}

// dialectMarkers are tried in order: the more specific first, because
// templates of one family quote the markers of another (GLM-4.5 and
// Qwen3-Coder templates also write <tool_call>, Mistral's and Hermes'
// templates also write {"name": …}; Mistral v11+ templates write
// [TOOL_CALLS] too, and only they write [ARGS]).
var dialectMarkers = []dialectMarker{
	{FormatDeepSeek, []string{"tool▁calls▁begin", "tool▁call▁begin", "tool▁sep"}},
	{FormatKimi, []string{"<|tool_calls_section_begin|>", "<|tool_call_argument_begin|>"}},
	{FormatGLM, []string{tagArgKey, tagArgValue}},
	{FormatInvoke, []string{tagFunctionCalls, tagInvoke + " name="}},
	{FormatFunction, []string{tagFunction}},
	{FormatBracketArgs, []string{bracketArgs, bracketCallID}},
	{FormatBracket, []string{bracketMarker}},
	{FormatToolCode, []string{"```tool_code", "tool_code"}},
	{FormatXML, []string{tagOpen}},
	{FormatBare, []string{`"tool_calls":`, `"tool_calls" :`, `{"name":`, `{"name" :`, `{ "name":`}},
}

// TemplateDialect returns the tool-call dialect a chat template writes
// calls in, or "" when it shows none (the template of a model without tool
// training, or one that keeps calls out of the text). The result is one of
// FormatXML (Hermes and Qwen's <tool_call> JSON), FormatFunction
// (<function=name>: Qwen3-Coder, Llama 3.1's custom tools), FormatBracket
// (Mistral's [TOOL_CALLS] and a JSON array), FormatBracketArgs (Mistral's
// [TOOL_CALLS]name[ARGS]{…}, tokenizers v11 and later), FormatDeepSeek, FormatKimi, FormatGLM, FormatInvoke,
// FormatToolCode (Gemma) or FormatBare (JSON call objects, alone or in a
// "tool_calls" array: Llama 3.x and others). The template is not trusted:
// any text gives an answer, in time linear in its length.
func TemplateDialect(template string) Format {
	for _, d := range dialectMarkers {
		for _, m := range d.any {
			if strings.Contains(template, m) {
				return d.format
			}
		}
	}
	return ""
}

// ParseDialect reads a dialect name as TemplateDialect returns it (and as
// the models table stores it). It reports false for any other text; "" is
// the unknown dialect, and valid.
func ParseDialect(s string) (Format, bool) {
	if s == "" {
		return "", true
	}
	for _, d := range dialectMarkers {
		if string(d.format) == s {
			return d.format, true
		}
	}
	return "", false
}

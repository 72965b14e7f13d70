// Package toolcall finds the tool calls a model wrote into its text, for
// models without native tool calling (DESIGN §4, "Tool-calling paths").
//
// It accepts <tool_call>{…}</tool_call> (the format olly's prompt asks for),
// <function=name>…</function>, Mistral's [TOOL_CALLS] forms, the dialects
// other model families were trained on (DeepSeek's and Kimi K2's token
// sections, GLM-4.5's <arg_key>/<arg_value> pairs, <function_calls>
// <invoke>, Gemma's ```tool_code Python calls), and — only when those found
// nothing, and only for tools in Options.Known — bare JSON objects and
// ```json fences. It repairs calls cut off at the end of the text and marks
// them Repaired (and Incomplete when a value was cut), and it removes all
// call markup and the [TASK_COMPLETE]
// signal from the text shown to the person, both at once (Strip) and while
// the response streams (Filter). TemplateDialect reads the dialect a model's
// chat template writes calls in; FormatCall writes a call in it, and
// Feedback tells a model that wrote a malformed call what was wrong, with
// the call written in its dialect. docs/toolcall.md describes the formats,
// the repair rules and the streaming contract.
package toolcall

import "github.com/olly-agent/olly/internal/llm"

// Format names the markup a call was written in.
type Format string

// The formats Extract recognises.
const (
	FormatXML      Format = "xml"       // <tool_call>…</tool_call>
	FormatFunction Format = "function"  // <function=name>…</function> without <tool_call> tags
	FormatBracket  Format = "bracket"   // [TOOL_CALLS]…
	FormatBare     Format = "bare"      // a JSON object in the prose
	FormatFence    Format = "fence"     // a JSON object in a ```json fence
	FormatDeepSeek Format = "deepseek"  // <｜tool▁calls▁begin｜>… (DeepSeek V3, R1, V3.1)
	FormatKimi     Format = "kimi"      // <|tool_calls_section_begin|>… (Kimi K2)
	FormatGLM      Format = "glm"       // <tool_call>name<arg_key>…</arg_key><arg_value>…</arg_value> (GLM-4.5)
	FormatInvoke   Format = "invoke"    // <function_calls><invoke name=…><parameter name=…>
	FormatToolCode Format = "tool_code" // ```tool_code fences with Python calls (Gemma)
)

// FormatBracketArgs is a dialect, not a format of its own: the templates
// of Mistral's tokenizers v11 and later (Mistral Small 3.1+, Devstral,
// Magistral) write [TOOL_CALLS]name[ARGS]{…}, one marker per call, where
// older ones write [TOOL_CALLS] and a JSON array. Calls in either form
// read as FormatBracket whatever the dialect.
const FormatBracketArgs Format = "bracket_args"

// Options configure parsing.
type Options struct {
	// Known holds the names of the tools the model may call. Bare JSON and
	// ```json fences count as calls only when every call in them names a
	// tool in Known, so that JSON the model merely shows is left alone. With
	// an empty Known they never count. Tagged formats are not filtered: a
	// call to an unknown tool there is reported to the model as such.
	Known map[string]bool
	// Prefer is the dialect the model was trained on (TemplateDialect of
	// its template; "" when unknown). Every format is still read — a model
	// drifts — but where the text reads two ways, the dialect's reading
	// wins: with FormatBare, bare and fenced JSON calls of known tools count
	// alongside tagged calls instead of only when there are none; with
	// FormatGLM, "<tool_call>name" cut off by the end of the text is a call
	// cut off (Incomplete, to be sent again), not prose, and spaces may
	// follow the name; with FormatToolCode, a ```python fence that holds
	// nothing but calls of known tools is a call, like ```tool_code. The
	// other dialects' markup reads one way only.
	Prefer Format
	// Params gives, per tool, the JSON Schema type of each top-level
	// parameter ("string", "integer", "number", "boolean", "array",
	// "object"; ParamTypes reads them from the schemas). Values written as
	// element text (<arg_value>, <parameter name=…>, <parameter=…>) are
	// read as that type: "20" is 20 for an integer, and a string keeps its
	// text even when it reads as JSON (a file's content). Without it, such
	// a value is a string unless it is a JSON object or array (in
	// <parameter=…>: always a string).
	Params map[string]map[string]string
}

// Call is one tool call found in the text.
type Call struct {
	// ToolCall is the call. Arguments is a JSON object ({} when there are
	// none); it is nil only when the model's arguments could not be read as
	// an object, and then RawArguments holds them when there was text to
	// keep. Index is the call's position among the calls returned.
	llm.ToolCall
	// Format is the markup the call was written in.
	Format Format `json:"format"`
	// Repaired is set when the text ended inside the call (the model ran out
	// of output) and olly closed the markup: the arguments hold what was
	// written. See Incomplete for whether anything was lost.
	Repaired bool `json:"repaired,omitempty"`
	// Incomplete is set, with Repaired, when the text ended inside a value
	// (a string, a number, a parameter, the tool name) rather than only
	// before closing brackets or tags. Such a call must not run: the agent
	// asks the model to send it again. A call that lacks only its closers
	// is complete in what it says, and runs.
	Incomplete bool `json:"incomplete,omitempty"`
	// Problem, when not empty, says why the call cannot be run as written
	// (no tool name, arguments that are not an object, JSON that does not
	// parse). It is written for the model: the agent returns it as the
	// call's result instead of running the tool.
	Problem string `json:"problem,omitempty"`
	// Start and End are the byte offsets of the markup that held the call.
	// Calls written in one markup (an array, several objects in one
	// <tool_call>) share it.
	Start int `json:"start"`
	End   int `json:"end"`
}

// Extract returns the tool calls in text, in order. Calls written as
// <tool_call>, <function=…> or [TOOL_CALLS] are returned when there are
// any; otherwise the bare-JSON and ```json-fence calls of known tools.
func Extract(text string, opts Options) []Call {
	s := newScanner(opts, false)
	s.buf = []byte(text)
	s.finish()
	return s.calls()
}

// Strip returns text as it should be displayed: without call markup of any
// format (including bare calls that Extract does not return because tagged
// calls exist), without [TASK_COMPLETE] and without a trailing partial
// prefix of it. Code the model shows, and JSON that is not a call of a known
// tool, stay.
func Strip(text string, opts Options) string {
	s := newScanner(opts, true)
	s.buf = []byte(text)
	s.out = make([]byte, 0, len(text))
	s.finish()
	return string(s.out)
}

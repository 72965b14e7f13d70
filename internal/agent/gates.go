package agent

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/olly-agent/olly/internal/event"
)

// Diagnostics reports problems in files (language servers, when they are
// connected).
type Diagnostics interface {
	// Check returns the error diagnostics of files (workspace-relative).
	Check(ctx context.Context, files []string) (DiagnosticsReport, error)
}

// DiagnosticsReport is the result of a check.
type DiagnosticsReport struct {
	// Errors counts the error diagnostics; Text lists them for the model.
	Errors int
	Text   string
	// Unchecked are files no diagnostics source covers.
	Unchecked []string
}

// Gate notes.
const (
	noteWriteRequired = "The task asks for changes to files, but no file has been written yet. Make the changes with write_file before finishing. If no change is needed after all, say why and reply [TASK_COMPLETE] again."
	noteToolErrors    = "A tool call in your last response failed or was refused (see its result). Deal with it before finishing, or explain why it does not matter, then reply [TASK_COMPLETE] again."
	noteDiagnostics   = "The files you changed have errors (listed below). Fix them, then reply [TASK_COMPLETE]."
)

// gates decide whether the model may finish (seed 000, "Post-Task
// Verification Gate" and "Write Validation"). Each refuses at most once per
// run, so a model that insists finishes anyway.
type gates struct {
	needsWrite bool
	// answerEnds: an answer without tool calls ends the turn (the mode's
	// answerEnds).
	answerEnds bool
	diag       Diagnostics

	quiet int // consecutive responses without tool calls or signal

	errorsRefused bool
	writeRefused  bool
	verified      bool
}

// judge decides what follows a response (the loop's only decision point):
// continue after a cut-off response or tool results, nudge once after a
// response with no tool calls and no signal, and otherwise — the model said
// [TASK_COMPLETE], or answered twice without calling tools — ask the gates.
// files are the files the run wrote so far; last is set on the last
// iteration.
func (g *gates) judge(ctx context.Context, res *streamResult, calls []call, batch *batchResult, files []string, last bool) verdict {
	if res.truncated {
		return verdict{kind: event.ControlTruncated}
	}
	// Reasoning that mentions the signal while the model still calls tools
	// is a plan, not a completion: only the answer's own prose counts then.
	signaled := res.complete || (res.thinkComplete && len(calls) == 0)
	// In chat mode an answer is the end: no nudge for the signal.
	signaled = signaled || (g.answerEnds && len(calls) == 0)
	if !signaled {
		if len(calls) > 0 {
			g.quiet = 0
			return continueWith(stateNeedTools, noteToolResults)
		}
		if g.quiet++; g.quiet < 2 {
			return continueWith(stateNeedTools, noteNoTools)
		}
	}
	return g.check(ctx, batch, files, last)
}

// check runs the gates in order: failed calls in the completing response,
// writes the task needs, then diagnostics of the changed files (once). On
// the last iteration nothing can be fixed any more: the gates then only
// warn.
func (g *gates) check(ctx context.Context, batch *batchResult, files []string, last bool) verdict {
	var warnings []string
	if batch != nil && batch.failed > 0 && !g.errorsRefused && !last {
		g.errorsRefused = true
		return continueWith(stateNeedFixes, noteToolErrors)
	}
	if g.needsWrite && len(files) == 0 && !g.writeRefused {
		g.writeRefused = true
		if !last {
			return continueWith(stateNeedTools, noteWriteRequired)
		}
		warnings = append(warnings, "The task looked like it needed file changes, but the agent finished without writing any file.")
	}
	if len(files) > 0 && !g.verified {
		g.verified = true
		v, w := g.verify(ctx, files)
		warnings = append(warnings, w...)
		if v != nil && !last {
			v.warnings = warnings
			return *v
		}
	}
	return verdict{done: true, warnings: warnings}
}

// verify checks the changed files' diagnostics. Without a diagnostics
// source it says so plainly: an unchecked file is never reported as
// error-free.
func (g *gates) verify(ctx context.Context, files []string) (*verdict, []string) {
	if g.diag == nil {
		return nil, []string{fmt.Sprintf("No diagnostics source is available, so %s %s not checked for errors.", listFiles(files), verb(len(files), "was", "were"))}
	}
	rep, err := g.diag.Check(ctx, files)
	if err != nil {
		return nil, []string{fmt.Sprintf("Checking %s for errors failed (%v), so %s not verified.", listFiles(files), err, verb(len(files), "it was", "they were"))}
	}
	var warnings []string
	if len(rep.Unchecked) > 0 {
		warnings = append(warnings, fmt.Sprintf("No diagnostics source covers %s, so %s not checked for errors.", listFiles(rep.Unchecked), verb(len(rep.Unchecked), "it was", "they were")))
	}
	if rep.Errors > 0 {
		v := verdict{kind: event.ControlDiagnostics, state: stateNeedFixes, note: noteDiagnostics, body: rep.Text}
		return &v, warnings
	}
	return nil, warnings
}

func listFiles(files []string) string {
	const show = 5
	if len(files) <= show {
		return strings.Join(files, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(files[:show], ", "), len(files)-show)
}

func verb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// needsWrite guesses from the prompt whether the task requires changing
// files, until the dispatcher classifies intent with the model. The rule: a
// prompt that does not open like a question ("what", "why", "how",
// "explain", "is", …) and uses a verb of change ("add", "fix", "create",
// "rename", …) needs writes. @path mentions are ignored (a file called
// add.go is not a request to add). It only decides whether a completion
// without any write is refused once, so a wrong guess costs at most one
// iteration.
func needsWrite(prompt string) bool {
	var words []string
	for _, f := range strings.Fields(prompt) {
		if strings.HasPrefix(f, "@") {
			continue
		}
		w := strings.ToLower(strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) }))
		if w != "" {
			words = append(words, w)
		}
	}
	if len(words) == 0 || questionWord(words[0]) {
		return false
	}
	for _, w := range words {
		if changeVerb(w) {
			return true
		}
	}
	return false
}

func questionWord(w string) bool {
	switch w {
	case "what", "why", "how", "where", "which", "who", "whom", "whose", "when", "explain", "describe",
		"summarize", "summarise", "review", "show", "list", "tell", "is", "are", "was", "were", "does", "did":
		return true
	}
	return false
}

func changeVerb(w string) bool {
	switch w {
	case "add", "create", "write", "implement", "fix", "modify", "change", "update", "rename", "refactor",
		"edit", "remove", "delete", "replace", "generate", "make", "move", "convert", "rewrite", "insert",
		"append", "patch", "migrate", "bump", "scaffold", "port", "extract", "split", "translate", "document",
		"comment", "format", "reformat", "upgrade", "downgrade", "introduce", "adjust", "correct":
		return true
	}
	return false
}

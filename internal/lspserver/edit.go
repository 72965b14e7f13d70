package lspserver

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/template"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/lsp"
)

//go:embed prompts/edit.md
var editSystem string

//go:embed prompts/edit_user.md
var editUserText string

var editUser = template.Must(template.New("edit_user").Parse(editUserText))

// editContextChars bounds the code sent before and after the selection.
const editContextChars = 3000

// codeActions offers "Edit with olly…" on a non-empty selection.
func (s *Server) codeActions(req *jsonrpc2.Request) (any, *jsonrpc2.Error) {
	var p codeActionParams
	if err := unmarshal(req, &p); err != nil {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: err.Error()}
	}
	actions := []codeAction{}
	if p.Range.Start != p.Range.End {
		actions = append(actions, codeAction{
			Title: "Edit with olly…", Kind: "refactor.rewrite",
			Command: &command{Title: "Edit with olly…", Command: commandEdit, Arguments: []any{EditArgs{URI: p.TextDocument.URI, Range: p.Range}}},
		})
	}
	return actions, nil
}

// editJob is one edit, read from the document when the command arrived.
type editJob struct {
	uri         lsp.DocumentURI
	lang        string
	version     int32
	rng         lsp.Range
	before      string
	selection   string
	after       string
	instruction string
}

// startEdit checks the command and runs the edit on its own goroutine: it
// calls the model and then asks the editor to apply the edit, whose answer
// comes through the same connection.
func (s *Server) startEdit(conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	job, rpcErr := s.editJob(req)
	if rpcErr != nil {
		_ = conn.ReplyWithError(s.ctx, req.ID, rpcErr)
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	key := req.ID.String()
	s.mu.Lock()
	s.byID[key] = cancel
	s.mu.Unlock()
	s.goFn(func() {
		defer func() {
			s.mu.Lock()
			delete(s.byID, key)
			s.mu.Unlock()
			cancel()
		}()
		if err := s.runEdit(ctx, conn, job); err != nil {
			code := int64(jsonrpc2.CodeInternalError)
			if ctx.Err() != nil {
				code = codeRequestCancelled
			}
			_ = conn.ReplyWithError(s.ctx, req.ID, &jsonrpc2.Error{Code: code, Message: "olly: " + err.Error()})
			return
		}
		_ = conn.Reply(s.ctx, req.ID, nil)
	})
}

func (s *Server) editJob(req *jsonrpc2.Request) (*editJob, *jsonrpc2.Error) {
	bad := func(format string, a ...any) *jsonrpc2.Error {
		return &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: fmt.Sprintf(format, a...)}
	}
	var p executeCommandParams
	if err := unmarshal(req, &p); err != nil {
		return nil, bad("%v", err)
	}
	if p.Command != commandEdit {
		return nil, bad("unknown command %q: olly lsp runs %s", p.Command, commandEdit)
	}
	if len(p.Arguments) != 1 {
		return nil, bad("%s takes one argument {uri, range, instruction}, got %d", commandEdit, len(p.Arguments))
	}
	var a EditArgs
	if err := json.Unmarshal(p.Arguments[0], &a); err != nil {
		return nil, bad("%s argument: %v", commandEdit, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[a.URI]
	if d == nil {
		return nil, bad("%s is not open in the editor", a.URI)
	}
	start, err := d.mapper.Offset(a.Range.Start)
	if err != nil {
		return nil, bad("range start: %v", err)
	}
	end, err := d.mapper.Offset(a.Range.End)
	if err != nil {
		return nil, bad("range end: %v", err)
	}
	if end <= start {
		return nil, bad("select the code to edit first")
	}
	job := &editJob{uri: a.URI, lang: d.lang, version: d.version, rng: a.Range, selection: d.text[start:end], instruction: strings.TrimSpace(a.Instruction)}
	job.before, _ = windows(d.text, start, editContextChars, 0)
	_, job.after = windows(d.text, end, 0, editContextChars)
	if job.instruction == "" {
		job.instruction, job.selection = instructionIn(job.selection)
	}
	if job.instruction == "" {
		return nil, bad("%s needs an instruction: pass it as \"instruction\", or start the selection with a comment line \"olly: <what to change>\"", commandEdit)
	}
	return job, nil
}

// instructionIn finds an instruction written in the selection itself, for
// editors whose code actions cannot ask for one (Helix): a first line that
// is a comment starting with "olly:". It returns the instruction and the
// selection without that line.
func instructionIn(sel string) (instruction, rest string) {
	first, after, _ := strings.Cut(sel, "\n")
	t := strings.TrimSpace(first)
	for _, mark := range []string{"//", "#", "--", ";", "%"} {
		if body, ok := strings.CutPrefix(t, mark); ok {
			if in, ok := strings.CutPrefix(strings.TrimSpace(body), "olly:"); ok && strings.TrimSpace(in) != "" {
				return strings.TrimSpace(in), after
			}
		}
	}
	return "", sel
}

// runEdit asks the model for the replacement and has the editor apply it
// as one edit.
func (s *Server) runEdit(ctx context.Context, conn *jsonrpc2.Conn, job *editJob) error {
	model := s.edit
	if model == "" {
		c, err := s.model.get(ctx)
		if err != nil {
			return fmt.Errorf("no model for edits: set chatMode.model (%v)", err)
		}
		model = c.model
	}
	var user strings.Builder
	if err := editUser.Execute(&user, map[string]string{
		"Path": displayPath(job.uri), "Language": job.lang, "Before": job.before,
		"Selection": job.selection, "After": job.after, "Instruction": job.instruction,
	}); err != nil {
		return err
	}
	out, err := s.chat(ctx, &llm.ChatRequest{
		Model:     model,
		Messages:  []llm.Message{{Role: llm.RoleSystem, Content: editSystem}, {Role: llm.RoleUser, Content: user.String()}},
		Options:   llm.Options{Temperature: llm.Ptr(s.set.EditTemperature), NumPredict: llm.Ptr(s.set.EditMaxTokens)},
		KeepAlive: s.set.KeepAlive,
	})
	if err != nil {
		return err
	}
	replacement := replacementOf(out, job.selection)
	s.mu.Lock()
	d := s.docs[job.uri]
	changed := d == nil || d.version != job.version
	annotate := s.annotations
	s.mu.Unlock()
	if changed {
		return errors.New("the document changed while the model was writing: run the edit again")
	}
	var res applyEditResult
	params := applyEditParams{Label: "olly: " + job.instruction, Edit: workspaceEditFor(job, replacement, annotate)}
	if err := conn.Call(ctx, "workspace/applyEdit", params, &res); err != nil {
		return fmt.Errorf("the editor did not apply the edit: %w", err)
	}
	if !res.Applied {
		reason := res.FailureReason
		if reason == "" {
			reason = "declined"
		}
		return fmt.Errorf("the editor did not apply the edit: %s", reason)
	}
	return nil
}

// chat makes the one model call of an edit and returns its text.
func (s *Server) chat(ctx context.Context, req *llm.ChatRequest) (string, error) {
	st, err := s.opts.Provider.Chat(ctx, req)
	if err != nil {
		return "", err
	}
	defer st.Close()
	var b strings.Builder
	for {
		ch, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return b.String(), nil
		}
		if err != nil {
			return "", err
		}
		b.WriteString(ch.Content)
		if ch.Done {
			return b.String(), nil
		}
	}
}

// replacementOf takes the code out of a model's answer (models fence it in
// Markdown despite being told not to) and keeps the selection's final line
// break.
func replacementOf(out, selection string) string {
	out = strings.TrimSpace(out)
	if strings.HasPrefix(out, "```") {
		if _, body, ok := strings.Cut(out, "\n"); ok {
			out = body
		}
		if i := strings.LastIndex(out, "```"); i >= 0 {
			out = out[:i]
		}
		out = strings.TrimRight(out, " \t\r\n")
	}
	// TrimSpace took the selection's leading indentation too.
	if lead := selection[:len(selection)-len(strings.TrimLeft(selection, " \t"))]; lead != "" && !strings.HasPrefix(out, lead) {
		out = lead + strings.TrimLeft(out, " \t")
	}
	if strings.HasSuffix(selection, "\n") && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out
}

// workspaceEditFor is the one edit: as an annotated document change that
// needs confirmation when the editor supports it (VS Code then shows the
// diff before applying), else as a plain change.
func workspaceEditFor(job *editJob, replacement string, annotate bool) workspaceEdit {
	if !annotate {
		return workspaceEdit{Changes: map[lsp.DocumentURI][]textEdit{job.uri: {{Range: job.rng, NewText: replacement}}}}
	}
	return workspaceEdit{
		DocumentChanges: []textDocumentEdit{{
			TextDocument: lsp.VersionedTextDocumentIdentifier{URI: job.uri, Version: job.version},
			Edits:        []annotatedTextEdit{{Range: job.rng, NewText: replacement, AnnotationID: "olly"}},
		}},
		ChangeAnnotations: map[string]changeAnnotation{"olly": {Label: "Edit with olly", NeedsConfirmation: true, Description: job.instruction}},
	}
}

package tools

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/olly-agent/olly/internal/atomicfile"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/safety"
	"github.com/olly-agent/olly/internal/workspace"
)

// WriteFile is the write_file tool.
type WriteFile struct{}

// Spec implements Tool.
func (WriteFile) Spec() llm.Tool {
	return spec("write_file", nil,
		param{name: "path", typ: "string", desc: "File path, relative to the workspace root (file and filePath are accepted too).", required: true},
		param{name: "content", typ: "string", desc: "The complete new content of the file.", required: true},
	)
}

// Run implements Tool (without asking: a write that needs approval is
// refused).
func (t WriteFile) Run(ctx context.Context, env *Env, args Args) (*Result, error) {
	p, err := t.Prepare(ctx, env, args)
	return runPrepared(ctx, env, p, err)
}

// edit is a write checked by Prepare.
type edit struct {
	given   string // the path as the model gave it
	content []byte
	old     []byte
	existed bool
	adds    int
	dels    int
}

// Prepare implements Gated: it resolves the path, diffs the new content
// against the old, and asks for approval when the file is sensitive or
// outside the workspace. Nothing is written before Run.
func (t WriteFile) Prepare(ctx context.Context, env *Env, args Args) (*Prepared, error) {
	given, ok := args.Path()
	if !ok || strings.TrimSpace(given) == "" {
		return &Prepared{Done: errResult("write_file needs a path: the file to write, relative to the workspace root.")}, nil
	}
	content, ok := args.String("content", "contents", "text")
	if !ok {
		return &Prepared{Done: errResult("write_file needs content: the complete new text of %s.", given)}, nil
	}
	if env.Workspace == nil {
		return &Prepared{Done: noWorkspace("write_file")}, nil
	}
	wp, err := env.Workspace.ResolveForWrite(given)
	req, out, outside := outsideRequest(err, "write")
	if err != nil && !outside {
		return &Prepared{Done: pathError("write_file", err)}, nil
	}
	target, rel := wp.Abs, wp.Rel
	if outside {
		target, rel = out.Resolved, filepath.ToSlash(out.Resolved)
	}
	e := edit{given: given, content: []byte(content)}
	old, info, err := readOld(target)
	if err != nil {
		return &Prepared{Done: errResult("write_file: cannot replace %s: %v.", rel, err)}, nil
	}
	e.old, e.existed = old, info != nil
	verb := "Writing "
	if !e.existed {
		verb = "Creating "
	}
	look := event.ToolAction{Text: verb + path.Base(rel), FilePath: rel}
	if e.existed && bytes.Equal(old, e.content) {
		return &Prepared{Display: look, Done: &Result{Content: fmt.Sprintf("%s already has exactly this content; nothing was written.", rel),
			Display: event.ToolAction{Text: "Unchanged " + path.Base(rel), FilePath: rel}}}, nil
	}
	diff, adds, dels := lineDiff(rel, old, e.content, e.existed)
	e.adds, e.dels = adds, dels
	look.Detail, look.Additions, look.Deletions = diffStat(adds, dels), adds, dels
	if outside {
		req.Diff = diff // the person sees the change they are letting through
	} else if why, rule, sev := sensitivity(env, wp); why != "" {
		req = &approval.Request{Kind: event.ApprovalFileEdit, FilePath: rel, Diff: diff, Severity: sev, Reason: why, Rule: rule}
	}
	return &Prepared{Display: look, Approval: req, Run: func(ctx context.Context, env *Env, d approval.Decision) (*Result, error) {
		if err := allowOutside(env, d, out); err != nil {
			return nil, err
		}
		return t.write(ctx, env, e, d)
	}}, nil
}

// sensitivity says why an edit of p needs approval ("" when it does not):
// at critical for the files git reads as configuration or repository
// (gitSensitive), which no toggle or --yes approves; otherwise the
// sensitive-file rules (session rules over agent.sensitiveFilePatterns,
// last match wins).
func sensitivity(env *Env, p workspace.Path) (why, rule string, sev safety.Severity) {
	if why, rule := gitSensitive(p); why != "" {
		return why, rule, safety.Critical
	}
	global := env.FileRules
	if global == nil {
		global = config.DefaultFileRules()
	}
	rules := safety.LayerFileRules(global, env.SessionFileRules)
	eval := safety.EvaluateFile
	if p.CaseInsensitive {
		eval = safety.EvaluateFileFold
	}
	act, m := eval(p.InRoot, rules)
	switch {
	case act != config.FileAsk:
		return "", "", safety.None
	case m == nil:
		return fmt.Sprintf("no sensitive-file rule covers %s, so the edit is shown first", p.Rel), "", safety.Medium
	}
	return fmt.Sprintf("%s is a sensitive file (pattern %s)", p.Rel, m.Pattern), m.Pattern, safety.Medium
}

// write performs a checked edit.
func (t WriteFile) write(ctx context.Context, env *Env, e edit, d approval.Decision) (*Result, error) {
	wp, err := env.Workspace.ResolveForWrite(e.given)
	if err != nil {
		return pathError("write_file", err), nil
	}
	cur, info, err := readOld(wp.Abs)
	if err != nil {
		return errResult("write_file: cannot replace %s: %v.", wp.Rel, err), nil
	}
	if d.ApprovalID != "" && ((info != nil) != e.existed || !bytes.Equal(cur, e.old)) {
		return errResult("%s changed while the edit waited for approval, so it was not written; read the file again and redo the edit.", wp.Rel), nil
	}
	newDirs := missingDirs(filepath.Dir(wp.Abs))
	checkpoint := ""
	if env.Snapshots != nil {
		if checkpoint, err = env.Snapshots.BeforeWrite(ctx, wp, newDirs); err != nil {
			return nil, fmt.Errorf("snapshot %s before writing it (nothing was written): %w", wp.Rel, err)
		}
	}
	if len(newDirs) > 0 {
		if err := os.MkdirAll(filepath.Dir(wp.Abs), 0o755); err != nil {
			return errResult("write_file: cannot create the directory for %s: %v.", wp.Rel, err), nil
		}
	}
	if err := atomicfile.Write(wp.Abs, e.content, keptMode(info)); err != nil {
		return errResult("write_file: cannot write %s: %v.", wp.Rel, err), nil
	}
	verb := "Wrote"
	if info == nil {
		verb = "Created"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%s)", verb, wp.Rel, diffStat(e.adds, e.dels))
	switch len(newDirs) {
	case 0:
	case 1:
		b.WriteString("; created 1 directory")
	default:
		fmt.Fprintf(&b, "; created %d directories", len(newDirs))
	}
	if env.Diagnostics != nil {
		if diag, err := env.Diagnostics.AfterWrite(ctx, wp); err == nil && strings.TrimSpace(diag) != "" {
			b.WriteString("\n\n[Auto-diagnostics]\n" + strings.TrimSpace(diag))
		}
	}
	return &Result{
		Content: b.String(),
		Display: event.ToolAction{Text: verb + " " + path.Base(wp.Rel), Detail: diffStat(e.adds, e.dels), FilePath: wp.Rel,
			CheckpointID: checkpoint, Additions: e.adds, Deletions: e.dels},
		Wrote: []string{wp.Rel},
	}, nil
}

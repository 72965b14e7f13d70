package tools

import (
	"context"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/olly-agent/olly/internal/approval"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/workspace"
)

// ReadFile is the read_file tool. The zero value uses the defaults.
type ReadFile struct {
	// ChunkLines is how many lines one action line shows (the seed's 100).
	ChunkLines int
	// MaxLines and MaxBytes cap one call; MaxLineBytes cuts long lines.
	MaxLines     int
	MaxBytes     int
	MaxLineBytes int
}

func (t ReadFile) withDefaults() ReadFile {
	if t.ChunkLines <= 0 {
		t.ChunkLines = 100
	}
	if t.MaxLines <= 0 {
		t.MaxLines = 2000
	}
	if t.MaxBytes <= 0 {
		t.MaxBytes = 256 << 10
	}
	if t.MaxLineBytes <= 0 {
		t.MaxLineBytes = 2000
	}
	return t
}

// Spec implements Tool.
func (t ReadFile) Spec() llm.Tool {
	t = t.withDefaults()
	return spec("read_file", map[string]any{"MaxLines": t.MaxLines, "MaxKB": t.MaxBytes >> 10, "MaxLineBytes": t.MaxLineBytes},
		param{name: "path", typ: "string", desc: "File path, relative to the workspace root (file and filePath are accepted too).", required: true},
		param{name: "startLine", typ: "integer", desc: "First line to read, 1-based (default 1)."},
		param{name: "endLine", typ: "integer", desc: "Last line to read, inclusive (default: as far as the limits allow)."},
	)
}

// lineRange reads startLine/endLine (and the aliases models use).
func lineRange(args Args) (start, end int, bad *Result) {
	start, _, err := args.Int("startLine", "start_line", "offset", "start", "line")
	if err != nil {
		return 0, 0, errResult("read_file: %v.", err)
	}
	end, _, err = args.Int("endLine", "end_line", "end")
	if err != nil {
		return 0, 0, errResult("read_file: %v.", err)
	}
	limit, hasLimit, err := args.Int("limit", "lineCount", "lines")
	if err != nil {
		return 0, 0, errResult("read_file: %v.", err)
	}
	if start < 1 {
		start = 1 // 0 is what 0-based models mean by the first line
	}
	if hasLimit && end == 0 && limit > 0 {
		end = start + limit - 1
	}
	if end < 0 || (end != 0 && end < start) {
		return 0, 0, errResult("read_file: endLine %d is before startLine %d; give a range such as startLine=%d, endLine=%d.", end, start, start, start+99)
	}
	return start, end, nil
}

// Prepare implements Gated: reading outside the workspace asks the person
// to allow the directory first.
func (t ReadFile) Prepare(ctx context.Context, env *Env, args Args) (*Prepared, error) {
	t = t.withDefaults()
	p, ok := args.Path()
	if !ok || strings.TrimSpace(p) == "" {
		return &Prepared{Done: errResult("read_file needs a path: the file to read, relative to the workspace root.")}, nil
	}
	start, end, bad := lineRange(args)
	if bad != nil {
		return &Prepared{Done: bad}, nil
	}
	look := event.ToolAction{Text: "Reading " + path.Base(strings.TrimSpace(p))}
	if name, ok := artifactName(env, p); ok {
		return &Prepared{Display: event.ToolAction{Text: "Reading command output"}, Run: func(ctx context.Context, env *Env, _ approval.Decision) (*Result, error) {
			return t.readArtifact(ctx, env, name, start, end)
		}}, nil
	}
	return prepareRead(env, "read_file", p, look, func(ctx context.Context, env *Env, wp workspace.Path) (*Result, error) {
		return t.readFile(ctx, env, wp, start, end)
	}), nil
}

// Run implements Tool (without asking: a path outside is refused).
func (t ReadFile) Run(ctx context.Context, env *Env, args Args) (*Result, error) {
	p, err := t.Prepare(ctx, env, args)
	return runPrepared(ctx, env, p, err)
}

func (t ReadFile) readFile(ctx context.Context, env *Env, p workspace.Path, start, end int) (*Result, error) {
	name := path.Base(p.Rel)
	switch {
	case p.IsDir():
		return errResult("%s is a directory; use list_files to see what it holds.", p.Rel), nil
	case !p.Info.Mode().IsRegular():
		return errResult("%s is not a regular file (%s); read_file reads only regular files.", p.Rel, p.Info.Mode().Type()), nil
	}
	f, err := os.Open(p.Abs)
	if err != nil {
		return errResult("read_file: cannot open %s: %v.", p.Rel, err), nil
	}
	defer f.Close()
	pg, err := readPage(ctx, f, start, end, pageLimits{maxLines: t.MaxLines, maxBytes: t.MaxBytes, maxLineBytes: t.MaxLineBytes})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p.Rel, err)
	}
	look := event.ToolAction{Text: "Read " + name, FilePath: p.Rel}
	switch {
	case pg.binary:
		return &Result{IsError: true, Content: fmt.Sprintf("%s is a binary file (%s); read_file shows text only.", p.Rel, sizeText(p.Info.Size())),
			Display: event.ToolAction{Text: "Read " + name, Detail: "binary", FilePath: p.Rel}}, nil
	case pg.total == 0:
		return &Result{Content: fmt.Sprintf("%s is empty (0 lines).", p.Rel), Display: event.ToolAction{Text: "Read " + name, Detail: "empty", FilePath: p.Rel}}, nil
	case start > pg.total:
		return errResult("%s has %d lines; startLine %d is past the end. Read from startLine=1 or a line up to %d.", p.Rel, pg.total, start, pg.total), nil
	}
	return t.page(ctx, env, p.Rel, look, pg), nil
}

// page renders a page for the model and shows one action per chunk of
// ChunkLines lines (seed 000, "Chunked read_file"): the first chunk is the
// call's own action, the others are extra actions in its group, each with
// the file and line to open.
func (t ReadFile) page(ctx context.Context, env *Env, label string, look event.ToolAction, pg linePage) *Result {
	var b strings.Builder
	fmt.Fprintf(&b, "%s — lines %d–%d of %d", label, pg.first, pg.last(), pg.total)
	if pg.crlf {
		b.WriteString(" (CRLF line endings)")
	}
	b.WriteByte('\n')
	cut := 0
	for i, l := range pg.lines {
		fmt.Fprintf(&b, "%6d\t%s", pg.first+i, l)
		if pg.cutBy[i] > 0 {
			fmt.Fprintf(&b, " [… %d more bytes]", pg.cutBy[i])
			cut++
		}
		b.WriteByte('\n')
	}
	if pg.limited && pg.last() < pg.total {
		fmt.Fprintf(&b, "[Showing lines %d–%d of %d (the limit is %d lines or %s per call). To read on, call read_file with startLine=%d.]\n",
			pg.first, pg.last(), pg.total, t.MaxLines, sizeText(int64(t.MaxBytes)), pg.last()+1)
	}
	if cut > 0 {
		fmt.Fprintf(&b, "[%d lines longer than %d bytes were cut.]\n", cut, t.MaxLineBytes)
	}
	first := look
	for s := pg.first; s <= pg.last(); s += t.ChunkLines {
		e := min(s+t.ChunkLines-1, pg.last())
		a := look
		a.Detail, a.StartLine = fmt.Sprintf("lines %d–%d", s, e), s
		if look.FilePath == "" {
			a.StartLine = 0
		}
		if s == pg.first {
			first = a
			continue
		}
		a.Status = event.ActionSuccess
		_ = env.Report.Extra(ctx, fmt.Sprintf("L%d", s), a)
	}
	return &Result{Content: strings.TrimSuffix(b.String(), "\n"), Display: first}
}

// sizeText renders a byte count for people: 512 B, 3.4 KB, 1.2 MB.
func sizeText(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	}
}

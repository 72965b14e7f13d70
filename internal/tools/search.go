package tools

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/procs"
	"github.com/olly-agent/olly/internal/workspace"
)

// Search is the search_workspace tool: an in-process grep that honours
// .gitignore, so olly needs no ripgrep. The zero value uses the defaults.
type Search struct {
	// MaxMatches caps the matching lines shown in all, PerFile those of
	// one file; MaxOutputBytes caps the result's size.
	MaxMatches     int
	PerFile        int
	MaxOutputBytes int
	// MaxContext caps contextLines; MaxLineBytes cuts long lines.
	MaxContext   int
	MaxLineBytes int
	// MaxFileBytes skips larger files (logs, data dumps).
	MaxFileBytes int64
	// Workers read and search files in parallel; 0 is one per CPU the
	// process may use (procs.Wide's GOMAXPROCS).
	Workers int
}

func (t Search) withDefaults() Search {
	if t.MaxMatches <= 0 {
		t.MaxMatches = 200
	}
	if t.PerFile <= 0 {
		t.PerFile = 20
	}
	if t.MaxOutputBytes <= 0 {
		t.MaxOutputBytes = 64 << 10
	}
	if t.MaxContext <= 0 {
		t.MaxContext = 10
	}
	if t.MaxLineBytes <= 0 {
		t.MaxLineBytes = 400
	}
	if t.MaxFileBytes <= 0 {
		t.MaxFileBytes = 16 << 20
	}
	return t
}

// Spec implements Tool.
func (t Search) Spec() llm.Tool {
	t = t.withDefaults()
	return spec("search_workspace", map[string]any{"MaxContext": t.MaxContext, "MaxFileMB": t.MaxFileBytes >> 20, "PerFile": t.PerFile, "MaxMatches": t.MaxMatches},
		param{name: "query", typ: "string", desc: "Text to find, or a regular expression when isRegex is true ((?i) ignores case, | separates alternatives, .* matches anything).", required: true},
		param{name: "isRegex", typ: "boolean", desc: "Treat query as a regular expression (default false)."},
		param{name: "caseSensitive", typ: "boolean", desc: "Match case exactly (true) or ignore it (false). Default: plain text ignores case when all lower case; regular expressions match case."},
		param{name: "directory", typ: "string", desc: "Subdirectory or workspace folder name to search (default: the whole workspace)."},
		param{name: "include", typ: "string", desc: `Only files matching this glob, e.g. "*.go" or "src/**/*.ts"; several separated by commas.`},
		param{name: "contextLines", typ: "integer", desc: "Lines of context before and after each match (default 0)."},
	)
}

// Describe implements Describer.
func (t Search) Describe(args Args) event.ToolAction {
	q, _ := args.String("query", "pattern", "text", "search")
	return event.ToolAction{Text: fmt.Sprintf("Searching for %q", q)}
}

// searchRequest is a parsed call.
type searchRequest struct {
	text  string
	regex bool
	// caseSensitive is the caseSensitive argument; nil when not given.
	caseSensitive *bool
	q             *query
	include       globSet
	context       int
	dirs          []workspace.Path
}

func (t Search) parse(env *Env, args Args) (searchRequest, *Result) {
	var r searchRequest
	r.text, _ = args.String("query", "pattern", "text", "search")
	regex, _, err := args.Bool("isRegex", "is_regex", "useRegex")
	if err != nil {
		return r, errResult("search_workspace: %v.", err)
	}
	r.regex = regex
	if cs, ok, err := args.Bool("caseSensitive", "case_sensitive"); err != nil {
		return r, errResult("search_workspace: %v.", err)
	} else if ok {
		r.caseSensitive = &cs
	}
	if r.q, err = compileQuery(r.text, r.regex, r.caseSensitive); err != nil {
		return r, &Result{IsError: true, Content: "search_workspace: " + err.Error() + ".", Display: event.ToolAction{Detail: "invalid query"}}
	}
	inc, _ := args.String("include", "glob", "filePattern", "file_pattern", "includePattern")
	if r.include, err = parseGlobs(inc); err != nil {
		return r, errResult("search_workspace: include %v.", err)
	}
	n, _, err := args.Int("contextLines", "context_lines", "context")
	if err != nil {
		return r, errResult("search_workspace: %v.", err)
	}
	r.context = min(max(n, 0), t.MaxContext)
	if env.Workspace == nil {
		return r, noWorkspace("search_workspace")
	}
	dirs, bad := searchDirs(env, args, "search_workspace")
	if bad != nil {
		return r, bad
	}
	r.dirs = dirs
	return r, nil
}

// Run implements Tool.
func (t Search) Run(ctx context.Context, env *Env, args Args) (*Result, error) {
	t = t.withDefaults()
	req, bad := t.parse(env, args)
	if bad != nil {
		return bad, nil
	}
	hits, skipped, err := t.find(ctx, env, req)
	if err != nil {
		return nil, err
	}
	return t.render(ctx, req, hits, skipped), nil
}

// fileHit is a file with matches: its display path, where it is, and how
// many lines matched.
type fileHit struct {
	rel   string
	abs   string
	count int
}

// skips counts files not searched.
type skips struct {
	binary, large, unreadable int
}

func (s *skips) add(o skips) {
	s.binary += o.binary
	s.large += o.large
	s.unreadable += o.unreadable
}

type walked struct{ abs, rel string }

// find is the first pass: walk the directories (gitignore honoured) and
// count each file's matching lines on Workers goroutines. The lines
// themselves are rendered later, for the files shown only.
func (t Search) find(ctx context.Context, env *Env, req searchRequest) ([]fileHit, skips, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The workers are the one CPU-parallel part of a search: all the Ps
	// while they run (olly runs on one otherwise, see internal/procs).
	release := procs.Wide()
	defer release()
	workers := t.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	files := make(chan walked, 512)
	results := make([][]fileHit, workers)
	skipped := make([]skips, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var buf []byte
			for f := range files {
				n, sk := t.count(f.abs, req.q, &buf)
				skipped[w].add(sk)
				if n > 0 {
					results[w] = append(results[w], fileHit{rel: f.rel, abs: f.abs, count: n})
				}
			}
		})
	}
	var walkErr error
	for _, d := range req.dirs {
		walkErr = env.Workspace.Walk(ctx, d.Abs, workspace.WalkOptions{}, func(e workspace.Entry) error {
			if e.IsDir || !regularOrLink(e.DirEntry) || !req.include.match(relTo(d, e.Path), e.InRoot) {
				return nil
			}
			select {
			case files <- walked{abs: e.Path, rel: e.Rel}:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		if walkErr != nil {
			break
		}
	}
	close(files)
	wg.Wait()
	if walkErr != nil {
		return nil, skips{}, fmt.Errorf("search %s: %w", dirLabel(req.dirs), walkErr)
	}
	var all []fileHit
	var sk skips
	for w := range workers {
		all = append(all, results[w]...)
		sk.add(skipped[w])
	}
	slices.SortFunc(all, func(a, b fileHit) int { return strings.Compare(a.rel, b.rel) })
	return all, sk, nil
}

// regularOrLink keeps regular files and links (whose target Walk checked);
// opening a FIFO or device could block or never end.
func regularOrLink(d fs.DirEntry) bool {
	return d == nil || d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0
}

// count searches one file and returns its number of matching lines.
func (t Search) count(abs string, q *query, buf *[]byte) (int, skips) {
	data, sk := t.load(abs, buf)
	if data == nil {
		return 0, sk
	}
	n := 0
	q.scan(data, func(_, _, _ int) bool { n++; return true })
	return n, sk
}

// load reads a text file into buf (reused across files), or returns nil
// and why it was skipped.
func (t Search) load(abs string, buf *[]byte) ([]byte, skips) {
	data, sk := readInto(abs, t.MaxFileBytes, buf)
	if data == nil {
		return nil, sk
	}
	if bytes.IndexByte(data[:min(len(data), sniffBytes)], 0) >= 0 {
		return nil, skips{binary: 1}
	}
	return data, skips{}
}

// grow makes *buf hold at least n bytes.
func grow(buf *[]byte, n int) []byte {
	if cap(*buf) < n {
		*buf = make([]byte, n+n/8)
	}
	return (*buf)[:n]
}

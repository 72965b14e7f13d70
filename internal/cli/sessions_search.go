package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
)

// searchCatchUp bounds embedding pending messages before a search: a
// one-shot command has no background indexer, and a person waiting for
// results should not wait long.
const searchCatchUp = 30 * time.Second

type sessionsSearchOptions struct {
	*sessionsOptions
	Words   bool
	All     bool
	Limit   int
	CatchUp time.Duration
}

func newSessionsSearchCmd(parent *sessionsOptions) *cobra.Command {
	opts := &sessionsSearchOptions{sessionsOptions: parent, CatchUp: searchCatchUp}
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search sessions by words and meaning",
		Long: `Finds the sessions of this workspace (--all: every workspace) whose prompts,
answers or titles match QUERY, best first, with the matching passages.

Search is by words (stemmed: "running" finds "run"; "quoted phrases"; word*
for a prefix) and, when an embedding model is set (embedding.model, default
nomic-embed-text on the model server), by meaning: both rankings are combined.
Messages stored since the last search are embedded first (with a progress
line; at most 30 s). When the embedding model is not set, not installed or
the server cannot be reached, olly says so and searches by words only.
--words searches by words only.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSessionsSearch(cmd.Context(), opts, strings.Join(args, " "))
		},
	}
	cmd.Flags().BoolVarP(&opts.Words, "words", "w", false, "search by words only")
	cmd.Flags().BoolVarP(&opts.All, "all", "a", false, "search the sessions of every workspace")
	cmd.Flags().IntVarP(&opts.Limit, "limit", "n", 10, "most sessions to show")
	return cmd
}

func runSessionsSearch(ctx context.Context, opts *sessionsSearchOptions, query string) error {
	if strings.TrimSpace(query) == "" {
		return usageError("give the words to search for: olly sessions search \"parse config\"")
	}
	if opts.Limit <= 0 {
		return usageError("--limit %d: give a positive number", opts.Limit)
	}
	st, err := opts.Store(ctx)
	if err != nil {
		return err
	}
	q := store.SearchQuery{Text: query, Limit: opts.Limit}
	if !opts.All {
		if q.Workspace, err = opts.workspace(); err != nil {
			return err
		}
	}
	var emb *store.Embedder
	if !opts.Words {
		if emb, err = opts.Embedder(); err != nil {
			return err
		}
	}
	prog := &searchProgress{io: opts.IO}
	res, err := session.Search(ctx, st, session.SearchOptions{Query: q, Embedder: emb, WordsOnly: opts.Words,
		CatchUp: opts.CatchUp, Progress: prog.report})
	prog.done()
	if err != nil {
		return err
	}
	if res.Notice != "" && !opts.Words {
		fmt.Fprintln(opts.IO.ErrOut, "olly: "+res.Notice+".")
	}
	if opts.JSON {
		if res.Sessions == nil {
			res.Sessions = []store.SessionMatch{}
		}
		return writeJSON(opts.IO.Out, res)
	}
	if len(res.Sessions) == 0 {
		fmt.Fprintf(opts.IO.ErrOut, "No session matches %q.\n", query)
		return nil
	}
	now := opts.now()
	for i, m := range res.Sessions {
		if i > 0 {
			fmt.Fprintln(opts.IO.Out)
		}
		title := m.TitleSnippet
		if title == "" {
			title = m.Session.Title
		}
		line := fmt.Sprintf("%s  %s  · %s", m.Session.ID, cell(title, 60), relativeTime(now, m.Session.UpdatedAt))
		if opts.All {
			line += " · " + m.Session.Workspace
		}
		fmt.Fprintln(opts.IO.Out, line)
		for _, h := range m.Hits {
			fmt.Fprintf(opts.IO.Out, "  turn %d · %s (seq %d): %s\n", h.Turn, hitLabel(h.Type), h.Seq, cell(h.Snippet, 140))
		}
	}
	return nil
}

// hitLabel names who said a matching passage.
func hitLabel(typ string) string {
	switch event.Type(typ) {
	case event.TypeUserMessage:
		return "you"
	case event.TypeAssistantMessage, event.TypeFinalMessage:
		return "olly"
	case event.TypeTitleChanged:
		return "title"
	}
	return typ
}

// searchProgress shows the embedding catch-up on stderr: a line updated
// in place at a terminal, one line at the end otherwise.
type searchProgress struct {
	io   *IOStreams
	last *store.IndexProgress
}

func (p *searchProgress) report(x store.IndexProgress) {
	p.last = &x
	if p.io.StderrTTY {
		fmt.Fprintf(p.io.ErrOut, "\rEmbedding messages for search by meaning (%s): %d/%d", x.Model, x.Done, x.Total)
	}
}

func (p *searchProgress) done() {
	if p.last == nil {
		return
	}
	if p.io.StderrTTY {
		fmt.Fprintln(p.io.ErrOut)
		return
	}
	fmt.Fprintf(p.io.ErrOut, "Embedded messages for search by meaning (%s): %d of %d have vectors.\n", p.last.Model, p.last.Done, p.last.Total)
}

// searchEmbedder is the embedding model session search uses
// (embedding.model; nil when it is empty), on a client that does not retry:
// a server that is down should cost a search one attempt, not seven
// seconds of retries.
func (f *Factory) searchEmbedder() (*store.Embedder, error) {
	cfg, err := f.settings()
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(cfg.Embedding.Model) == "" {
		return nil, nil
	}
	newProvider := f.NewProvider
	if newProvider == nil {
		newProvider = func(c *config.Config) (llm.Provider, error) { return app.NewProviderWithRetry(c, llm.RetryPolicy{}) }
	}
	p, err := newProvider(cfg)
	if err != nil {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	return session.NewEmbedder(p, cfg.Embedding.Model), nil
}

package session

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
)

// DefaultTitleTimeout bounds a model-written title (the seed's
// titleGenerator: 15 s). A slow or stuck model must not keep a goroutine
// and a connection for longer than a person waits for a title.
const DefaultTitleTimeout = 15 * time.Second

// TitleGenerator writes a session title from the session's first prompt
// with a model (agent.sessionTitleGeneration). It blocks until the title
// is written or ctx ends. An empty title with a nil error means "keep the
// first-message title" (the firstMessage setting).
type TitleGenerator interface {
	GenerateTitle(ctx context.Context, prompt, model string) (string, error)
}

// errTitleKept stops an update of a session whose title is no longer the
// first-message one (the person renamed it meanwhile).
var errTitleKept = errors.New("the session was renamed meanwhile")

// background owns the service's background work (model-written titles):
// it starts goroutines until Close, and Close waits for them.
type background struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	closed bool
}

func newBackground() *background {
	ctx, cancel := context.WithCancel(context.Background())
	return &background{ctx: ctx, cancel: cancel}
}

// goFn runs fn in a goroutine with the background's context, unless the
// service is closed (then fn never runs).
func (b *background) goFn(fn func(ctx context.Context)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		fn(b.ctx)
	}()
}

// close cancels the background work and waits for it to end.
func (b *background) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.cancel()
	b.wg.Wait()
}

// Close stops the service's background work (titles being written) and
// waits for it. Turns are not affected: their callers own them. Call it
// before closing the store.
func (s *Service) Close() error {
	s.bg.close()
	return nil
}

// logger returns the service's logger, or one that discards.
func (s *Service) logger() *slog.Logger {
	if s.log != nil {
		return s.log
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// generateTitle asks the title generator, in the background, for a better
// title than first (the first-message title the session got). The turn is
// never blocked: the generator has s.titleTimeout, and a failure leaves
// first in place and is logged.
func (s *Service) generateTitle(id string, turn int, prompt, model, first string) {
	if s.titles == nil {
		return
	}
	timeout := s.titleTimeout
	if timeout <= 0 {
		timeout = DefaultTitleTimeout
	}
	s.bg.goFn(func(ctx context.Context) {
		gctx, cancel := context.WithTimeout(ctx, timeout)
		title, err := s.titles.GenerateTitle(gctx, prompt, model)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) || (err != nil && gctx.Err() != nil && ctx.Err() == nil) {
			s.logger().Warn("session title: the model did not answer in time; keeping the first-message title",
				"session", id, "timeout", timeout, "error", err)
			return
		}
		if err != nil {
			s.logger().Warn("session title: generation failed; keeping the first-message title", "session", id, "error", err)
			return
		}
		title = strings.TrimSpace(title)
		if title == "" || title == first {
			return
		}
		if err := s.replaceTitle(ctx, id, turn, first, title); err != nil && !errors.Is(err, errTitleKept) {
			s.logger().Warn("session title: could not store the model's title", "session", id, "error", err)
		}
	})
}

// replaceTitle sets title only while the session still has the title
// first: a name the person chose meanwhile wins.
func (s *Service) replaceTitle(ctx context.Context, id string, turn int, first, title string) error {
	_, err := s.store.UpdateSession(ctx, id, func(x *store.Session) error {
		if x.Title != first {
			return errTitleKept
		}
		x.Title = title
		return nil
	})
	if err != nil {
		return err
	}
	_, err = s.Emit(ctx, id, turn, event.TitleChanged{Title: title})
	return err
}

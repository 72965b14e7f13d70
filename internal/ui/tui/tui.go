// Package tui is olly's interactive terminal UI (`olly` at a terminal): a
// full-screen pairing session over the session service. It renders the
// session's events through the same timeline model as export and RPC
// (internal/timeline), answers approvals, reviews changes through the
// checkpoint package's review model, and holds no agent logic.
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
)

// Feed is where the TUI reads a session's events (*session.Service).
type Feed interface {
	Subscribe(ctx context.Context, id string, afterSeq int64) (*session.Subscription, error)
	LastSeq(ctx context.Context, id string) (int64, error)
}

// RunOptions configure one TUI run.
type RunOptions struct {
	Deps      Deps
	Feed      Feed
	SessionID string
	// Task is sent as the first prompt (olly "task").
	Task string
	// Workspace is the directory whose sessions the picker lists when
	// SessionID is empty (olly --resume without an id): the TUI opens on
	// its sessions picker, and Esc there quits.
	Workspace string
	// In and Out are the terminal; nil: Bubble Tea's defaults (stdin, or
	// the controlling terminal, and stdout).
	In  io.Reader
	Out io.Writer
}

// Run shows the session until the person quits. It returns the id of the
// session to continue in when they picked (or made) another one, "" when
// they quit.
func Run(ctx context.Context, o RunOptions) (string, error) {
	if o.Deps.Sessions == nil || o.Feed == nil {
		return "", errors.New("tui: no session service")
	}
	if o.SessionID == "" {
		return runPicker(ctx, o)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	hist, err := Load(ctx, o.Deps.Sessions, o.Feed, o.SessionID)
	if err != nil {
		return "", err
	}
	sub, err := o.Feed.Subscribe(ctx, o.SessionID, hist.seq)
	if err != nil {
		return "", err
	}
	defer sub.Close()

	m := New(ctx, Options{Deps: o.Deps, Info: hist.info, Task: o.Task, Dark: true})
	opts := []tea.ProgramOption{tea.WithContext(ctx)}
	if o.In != nil {
		opts = append(opts, tea.WithInput(o.In))
	}
	if o.Out != nil {
		opts = append(opts, tea.WithOutput(o.Out))
	}
	p := tea.NewProgram(m, opts...)

	// The pump hands events to the program; it ends when ctx does.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		p.Send(historyMsg{info: hist.info, evs: hist.evs})
		for {
			ev, err := sub.Next(ctx)
			if err != nil {
				return
			}
			p.Send(eventMsg{ev})
		}
	}()
	_, runErr := p.Run()
	cancel()
	sub.Close()
	wg.Wait()
	if runErr != nil && !errors.Is(runErr, tea.ErrProgramKilled) && !errors.Is(runErr, context.Canceled) {
		return "", fmt.Errorf("terminal UI: %w", runErr)
	}
	return m.SwitchTo, nil
}

// runPicker shows only the sessions picker of o.Workspace and returns
// the session picked ("" when the person left).
func runPicker(ctx context.Context, o RunOptions) (string, error) {
	m := New(ctx, Options{Deps: o.Deps, Info: SessionInfo{Workspace: o.Workspace}, Dark: true})
	m.pickOnly = true
	opts := []tea.ProgramOption{tea.WithContext(ctx)}
	if o.In != nil {
		opts = append(opts, tea.WithInput(o.In))
	}
	if o.Out != nil {
		opts = append(opts, tea.WithOutput(o.Out))
	}
	load := m.openPicker(pickSessions)
	if _, err := tea.NewProgram(&pickerOnly{m, load}, opts...).Run(); err != nil &&
		!errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, context.Canceled) {
		return "", fmt.Errorf("terminal UI: %w", err)
	}
	return m.SwitchTo, nil
}

// pickerOnly runs the model with its sessions picker open from the start.
type pickerOnly struct {
	*Model
	load tea.Cmd
}

func (p *pickerOnly) Init() tea.Cmd { return tea.Batch(p.Model.Init(), p.load) }

// History is a session as the TUI opens it: its info, the events of its
// current branch, and the last seq they cover (live events follow it).
type History struct {
	info SessionInfo
	evs  []event.Event
	seq  int64
}

// Load reads the session's current branch up to its last stored event.
func Load(ctx context.Context, s Sessions, f Feed, id string) (*History, error) {
	sess, err := s.Open(ctx, id)
	if err != nil {
		return nil, err
	}
	// The last seq first: events stored after it come live, so none is
	// shown twice or missed.
	seq, err := f.LastSeq(ctx, id)
	if err != nil {
		return nil, err
	}
	evs, err := s.History(ctx, id)
	if err != nil {
		return nil, err
	}
	kept := evs[:0]
	for _, ev := range evs {
		if ev.Seq <= seq {
			kept = append(kept, ev)
		}
	}
	info := SessionInfo{ID: sess.ID, Title: sess.Title, Workspace: sess.Workspace, Mode: sess.Mode, Model: sess.Model}
	if info.Workspace != "" {
		info.Workspace = filepath.Clean(info.Workspace)
	}
	return &History{info: info, evs: kept, seq: seq}, nil
}

package app

import (
	"context"
	"errors"

	"github.com/olly-agent/olly/internal/checkpoint"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/session"
	"github.com/olly-agent/olly/internal/store"
)

// OpenStore opens (creating if needed) the database at path. Every command
// opens it here: internal/app is the one place olly's services are built.
func OpenStore(ctx context.Context, path string) (*store.Store, error) {
	return store.Open(ctx, path, store.Options{})
}

// Admin is the services of a command that works on stored sessions
// without running a turn (olly sessions …, olly changes …, print mode's
// --resume lookup): the session service without an agent, and the
// checkpoint managers of workspaces. Its events go through the session
// service's Emit like every other event.
type Admin struct {
	Store    *store.Store
	Sessions *session.Service
}

// NewAdmin builds the admin services over an open store (the caller
// closes the store, after Admin.Close).
func NewAdmin(st *store.Store) (*Admin, error) {
	if st == nil {
		return nil, errors.New("app: the store is required")
	}
	svc, err := session.New(session.Deps{Store: st})
	if err != nil {
		return nil, err
	}
	return &Admin{Store: st, Sessions: svc}, nil
}

// Checkpoints returns the checkpoint manager of the workspace at root
// (absolute, links resolved); keep and undo events it emits are stored
// through the session service.
func (a *Admin) Checkpoints(root string) *checkpoint.Manager {
	return checkpoint.New(a.Store, root, sessionEmitter{a.Sessions})
}

// Close stops the session service (the store belongs to the caller).
func (a *Admin) Close() error { return a.Sessions.Close() }

// sessionEmitter publishes checkpoint events through the session
// service, so they are stored and shown like every other event (Emit is
// the only way into the log).
type sessionEmitter struct{ s *session.Service }

func (e sessionEmitter) Emit(ctx context.Context, sessionID string, turn int, p event.Payload) error {
	_, err := e.s.Emit(ctx, sessionID, turn, p)
	return err
}

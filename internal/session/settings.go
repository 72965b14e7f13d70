package session

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/store"
)

// Modes lists the modes a session (or one prompt) can run in: agent, and
// the mode of every slash command that has one.
func Modes() []event.Mode {
	out := []event.Mode{event.ModeAgent}
	for _, c := range Commands() {
		if c.Mode != "" && !slices.Contains(out, c.Mode) {
			out = append(out, c.Mode)
		}
	}
	return out
}

// ModeList is Modes as a comma-separated list, for messages.
func ModeList() string {
	var names []string
	for _, m := range Modes() {
		names = append(names, string(m))
	}
	return strings.Join(names, ", ")
}

// ChangeSettings changes the session's own settings — the non-nil fields
// of ch: model, explorer model, mode, the two auto-approve toggles — on the
// session row, and records what changed as a session_settings event (turn
// 0, like a rename), so the history shows when it changed. A field equal
// to the current value is left out; when nothing changes, nothing is
// recorded. The next turn uses the new values; a turn already running keeps
// its model and mode. It returns the session as stored.
func (s *Service) ChangeSettings(ctx context.Context, id string, ch event.SessionSettings) (*store.Session, error) {
	if err := checkSettings(&ch); err != nil {
		return nil, err
	}
	if _, err := s.Open(ctx, id); err != nil {
		return nil, err
	}
	var changed event.SessionSettings
	sess, err := s.store.UpdateSession(ctx, id, func(x *store.Session) error {
		changed = event.SessionSettings{}
		set(&x.Model, ch.Model, &changed.Model)
		set(&x.ExplorerModel, ch.ExplorerModel, &changed.ExplorerModel)
		mode := event.Mode(x.Mode)
		set(&mode, ch.Mode, &changed.Mode)
		x.Mode = string(mode)
		set(&x.AutoApproveCommands, ch.AutoApproveCommands, &changed.AutoApproveCommands)
		set(&x.AutoApproveSensitiveEdits, ch.AutoApproveSensitiveEdits, &changed.AutoApproveSensitiveEdits)
		setPatterns(x, ch.SensitivePatterns, &changed)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("change the settings of session %s: %w", id, err)
	}
	if reflect.ValueOf(changed).IsZero() {
		return sess, nil
	}
	if _, err := s.Emit(ctx, id, 0, changed); err != nil {
		return sess, err
	}
	return sess, nil
}

// checkSettings trims ch's strings and refuses values no turn could use.
func checkSettings(ch *event.SessionSettings) error {
	for _, p := range []*string{ch.Model, ch.ExplorerModel} {
		if p != nil {
			*p = strings.TrimSpace(*p)
		}
	}
	if ch.Mode != nil {
		*ch.Mode = event.Mode(strings.TrimSpace(string(*ch.Mode)))
	}
	if ch.Model != nil && *ch.Model == "" {
		return fmt.Errorf("the model name is empty: give a model the server has (olly models lists them)")
	}
	if p := ch.SensitivePatterns; p != nil && !json.Valid(p) {
		return fmt.Errorf("the sensitive-file rules are not JSON: give a list of {pattern, action} (or null to use the settings' rules)")
	}
	if ch.Mode != nil && !slices.Contains(Modes(), *ch.Mode) {
		return fmt.Errorf("unknown mode %q: use one of %s", *ch.Mode, ModeList())
	}
	return nil
}

// set sets *dst to *v when v differs from it, and records v in *changed.
func set[T comparable](dst *T, v *T, changed **T) {
	if v != nil && *v != *dst {
		*dst = *v
		val := *v
		*changed = &val
	}
}

// setPatterns sets the session's own sensitive-file rules (JSON null
// clears them) when they differ, and records the change.
func setPatterns(x *store.Session, p json.RawMessage, changed *event.SessionSettings) {
	if p == nil {
		return
	}
	var v json.RawMessage
	if strings.TrimSpace(string(p)) != "null" {
		v = append(json.RawMessage(nil), p...)
	}
	if bytes.Equal(v, x.SensitivePatterns) {
		return
	}
	x.SensitivePatterns = v
	changed.SensitivePatterns = append(json.RawMessage(nil), p...)
}

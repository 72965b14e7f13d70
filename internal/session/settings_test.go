package session

import (
	"context"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/event"
)

func settingPtr[T any](v T) *T { return &v }

func TestChangeSettings(t *testing.T) {
	svc, _, sess := newService(t, nil)
	ctx := context.Background()

	got, err := svc.ChangeSettings(ctx, sess.ID, event.SessionSettings{Mode: settingPtr(event.Mode(" plan ")), AutoApproveCommands: settingPtr(true), Model: settingPtr("m")})
	if err != nil {
		t.Fatal(err)
	}
	if got.Mode != "plan" || !got.AutoApproveCommands || got.AutoApproveSensitiveEdits {
		t.Fatalf("stored %+v", got)
	}
	// Unchanged values are not recorded; an empty change records nothing.
	if _, err := svc.ChangeSettings(ctx, sess.ID, event.SessionSettings{Mode: settingPtr(event.Mode("plan"))}); err != nil {
		t.Fatal(err)
	}
	evs, err := svc.History(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var changes []event.SessionSettings
	for _, ev := range evs {
		if p, ok := ev.Data.(event.SessionSettings); ok {
			changes = append(changes, p)
		}
	}
	if len(changes) != 1 {
		t.Fatalf("%d session_settings events, want 1", len(changes))
	}
	c := changes[0]
	if c.Model != nil || c.Mode == nil || *c.Mode != "plan" || c.AutoApproveCommands == nil || !*c.AutoApproveCommands || c.AutoApproveSensitiveEdits != nil {
		t.Errorf("recorded %+v: want the mode and the command toggle only (the model did not change)", c)
	}

	for _, tt := range []struct {
		name string
		ch   event.SessionSettings
		want string
	}{
		{"unknown mode", event.SessionSettings{Mode: settingPtr(event.Mode("yolo"))}, `unknown mode "yolo"`},
		{"empty model", event.SessionSettings{Model: settingPtr(" ")}, "model name is empty"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := svc.ChangeSettings(ctx, sess.ID, tt.ch); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := svc.ChangeSettings(ctx, "nope", event.SessionSettings{Mode: settingPtr(event.Mode("agent"))}); err == nil {
		t.Error("changing an unknown session succeeded")
	}
}

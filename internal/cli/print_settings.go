package cli

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/olly-agent/olly/event"
	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/config"
)

// sessionFlags are print mode's per-session overrides of the settings,
// stored with the session (a session_settings event) like the ones RPC's
// set_session_settings makes.
type sessionFlags struct {
	ExplorerModel  string
	SensitiveFiles string
}

func bindSessionFlags(root *cobra.Command, o *sessionFlags) {
	fl := root.Flags()
	fl.StringVar(&o.ExplorerModel, "explorer-model", "", "print mode: the `model` of this session's sub-agents (overrides agent.explorerModel for the session)")
	fl.StringVar(&o.SensitiveFiles, "sensitive-files", "", "print mode: this session's sensitive-file `rules`, in any form agent.sensitiveFilePatterns takes (e.g. '{\"**/*.env\": ask, \"**\": auto}'); null goes back to the settings' rules")
}

// check refuses rules olly cannot read before anything starts.
func (o *sessionFlags) check() error {
	if strings.TrimSpace(o.SensitiveFiles) == "" {
		return nil
	}
	if _, err := config.SessionFileRules([]byte(o.SensitiveFiles)); err != nil {
		return usageError("--sensitive-files: %v", err)
	}
	return nil
}

// apply stores the overrides given with the session.
func (o *sessionFlags) apply(ctx context.Context, a *app.App, sessionID string) error {
	var ch event.SessionSettings
	if m := strings.TrimSpace(o.ExplorerModel); m != "" {
		ch.ExplorerModel = &m
	}
	if strings.TrimSpace(o.SensitiveFiles) != "" {
		rules, err := config.SessionFileRules([]byte(o.SensitiveFiles))
		if err != nil {
			return usageError("--sensitive-files: %v", err)
		}
		ch.SensitivePatterns = rules
	}
	if ch.ExplorerModel == nil && ch.SensitivePatterns == nil {
		return nil
	}
	_, err := a.Sessions.ChangeSettings(ctx, sessionID, ch)
	return err
}

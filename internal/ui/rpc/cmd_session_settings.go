package rpc

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/rpcproto"
)

func sessionSettingsCommands() []*command {
	return []*command{
		def(rpcproto.CmdSetSessionSettings, "Set the session's own overrides of the settings: its sub-agents' model (agent.explorerModel) and its sensitive-file rules (agent.sensitiveFilePatterns). They are stored with the session (a session_settings event) and apply from its next turn.", false, runSetSessionSettings),
	}
}

func runSetSessionSettings(ctx context.Context, s *Server, _ *call, req rpcproto.SessionSettingsRequest) (rpcproto.SessionSettingsResult, error) {
	if req.ExplorerModel == nil && req.SensitiveFilePatterns == nil {
		return rpcproto.SessionSettingsResult{}, errors.New("no setting given: send explorerModel, sensitiveFilePatterns or both")
	}
	var ch event.SessionSettings
	if m := req.ExplorerModel; m != nil {
		name := strings.TrimSpace(*m)
		if name != "" && s.opts.Models != nil {
			checkCtx, cancel := context.WithTimeout(ctx, modelCheck)
			_, err := s.opts.Models.Details(checkCtx, name)
			cancel()
			if err != nil {
				return rpcproto.SessionSettingsResult{}, fmt.Errorf("field explorerModel: %w", err)
			}
		}
		ch.ExplorerModel = &name
	}
	if raw := req.SensitiveFilePatterns; raw != nil {
		rules, err := config.SessionFileRules(raw)
		if err != nil {
			return rpcproto.SessionSettingsResult{}, fmt.Errorf("field sensitiveFilePatterns: %w", err)
		}
		ch.SensitivePatterns = rules
	}
	sess, err := s.opts.Sessions.ChangeSettings(ctx, s.current(), ch)
	if err != nil {
		return rpcproto.SessionSettingsResult{}, err
	}
	out := rpcproto.SessionSettingsResult{SessionID: sess.ID, ExplorerModel: sess.ExplorerModel}
	if len(sess.SensitivePatterns) > 0 {
		rules, err := config.ParseFileRules(sess.SensitivePatterns)
		if err != nil {
			return out, err
		}
		out.SensitiveFilePatterns = []rpcproto.FileRule{}
		for _, r := range rules {
			out.SensitiveFilePatterns = append(out.SensitiveFilePatterns, rpcproto.FileRule{Pattern: r.Pattern, Action: string(r.Action)})
		}
	}
	return out, nil
}

package app

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/olly-agent/olly/internal/event"
	"github.com/olly-agent/olly/internal/hooks"
	"github.com/olly-agent/olly/internal/mcp"
	"github.com/olly-agent/olly/internal/trust"
)

// ErrNoTrustRequest is returned for an answer naming no waiting request:
// it was answered already, or the program changed since it was shown.
var ErrNoTrustRequest = errors.New("no such trust request waits")

// TrustRequests lists the project programs of a session's workspace that
// would run but wait for a person's decision: MCP servers of .mcp.json and
// project hook files that are neither trusted nor declined with their
// current fingerprint, nor put off ("not now") in this session. The
// frontends show them as trust prompts (TUI dialog, web card, RPC
// get_trust_requests); nothing here ever trusts on its own.
func (a *App) TrustRequests(ctx context.Context, sessionID string) ([]trust.Request, error) {
	root, st, err := a.trustContext(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	return a.trustRequests(sessionID, root, st)
}

// trustRequests lists the waiting requests of root, each program
// fingerprinted once.
func (a *App) trustRequests(sessionID, root string, st *trust.Store) ([]trust.Request, error) {
	out := []trust.Request{}
	wait := func(r trust.Request) bool {
		return !st.Trusted(root, r.Kind, r.Name, r.Fingerprint) && !st.Declined(root, r.Kind, r.Name, r.Fingerprint) &&
			!a.trust.putOff(sessionID, root, r.Kind, r.Name, r.Fingerprint)
	}
	servers, err := a.mcpServers(root)
	if err != nil {
		return nil, err
	}
	for _, s := range servers {
		if !s.NeedsTrust() {
			continue
		}
		if r := mcpRequest(root, s); wait(r) {
			out = append(out, r)
		}
	}
	if a.Config.Hooks.Enabled {
		files, _ := hooks.Load(hooks.LoadOptions{Workspace: root, ConfigDir: a.Config.Paths().ConfigDir, ClaudeCompat: a.Config.Hooks.ClaudeCompat})
		for _, f := range files {
			if !f.Project {
				continue
			}
			if r := hookRequest(root, f); wait(r) {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// AnswerTrust applies a person's decision (trust.DecisionTrust,
// DecisionNotNow, DecisionNever) to the waiting request id of a session's
// workspace. Only a request that waits now can be answered: an id a
// client made up, or one whose program changed since it was listed, is
// ErrNoTrustRequest, and nothing is recorded.
func (a *App) AnswerTrust(ctx context.Context, sessionID, id, decision string) error {
	_, err := a.AnswerTrustRest(ctx, sessionID, id, decision)
	return err
}

// AnswerTrustRest is AnswerTrust that also gives the requests still
// waiting after the answer, from the same listing (RPC set_trust's
// result).
func (a *App) AnswerTrustRest(ctx context.Context, sessionID, id, decision string) ([]trust.Request, error) {
	if !slices.Contains([]string{trust.DecisionTrust, trust.DecisionNotNow, trust.DecisionNever}, decision) {
		return nil, fmt.Errorf("decision %q: answer %s, %s or %s", decision, trust.DecisionTrust, trust.DecisionNotNow, trust.DecisionNever)
	}
	root, st, err := a.trustContext(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	reqs, err := a.trustRequests(sessionID, root, st)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(reqs, func(r trust.Request) bool { return r.ID == id })
	if i < 0 {
		return nil, fmt.Errorf("%w: %q (answered already, or the program changed since it was shown: list the requests again)", ErrNoTrustRequest, id)
	}
	r := reqs[i]
	switch decision {
	case trust.DecisionTrust:
		err = st.Trust(r.Workspace, r.Kind, r.Name, r.Fingerprint)
	case trust.DecisionNever:
		err = st.Decline(r.Workspace, r.Kind, r.Name, r.Fingerprint)
	default:
		a.trust.putOffNow(sessionID, r.Workspace, r.Kind, r.Name, r.Fingerprint)
	}
	if err != nil {
		return nil, err
	}
	a.Log.Info("trust: a person answered a trust prompt", "decision", decision, "kind", r.Kind, "name", r.Name, "workspace", r.Workspace, "session", sessionID)
	// Through the session's log, so every frontend showing the session
	// (another web tab, an editor) takes the prompt down too. The answer
	// itself is recorded above: a log that cannot take the event does not
	// undo it.
	resolved := event.TrustResolved{RequestID: r.ID, Kind: r.Kind, Name: r.Name, Decision: decision, Fingerprint: r.Fingerprint}
	if _, err := a.Sessions.Emit(ctx, sessionID, 0, resolved); err != nil {
		a.Log.Warn("trust: record the answer in the session", "session", sessionID, "error", err)
	}
	// Each answer takes its request out of the waiting ones and leaves the
	// others as they were.
	return slices.Delete(reqs, i, i+1), nil
}

// trustContext is a session's workspace root and the trust store.
func (a *App) trustContext(ctx context.Context, sessionID string) (string, *trust.Store, error) {
	sess, err := a.Sessions.Open(ctx, sessionID)
	if err != nil {
		return "", nil, err
	}
	ws, err := a.openWorkspace(sess.Workspace)
	if err != nil {
		return "", nil, err
	}
	st, err := trust.Open(a.trustPath())
	if err != nil {
		return "", nil, err
	}
	return ws.Primary().Path, st, nil
}

// mcpServers are the servers the workspace's manager would start.
func (a *App) mcpServers(root string) ([]mcp.Server, error) {
	ws, err := a.openWorkspace(root)
	if err != nil {
		return nil, err
	}
	sp, err := a.spaceFor(ws)
	if err != nil {
		return nil, err
	}
	if sp.mcp == nil {
		return nil, nil
	}
	return sp.mcp.Servers(), nil
}

func mcpRequest(root string, s mcp.Server) trust.Request {
	fp, files := s.Fingerprinted()
	run := trust.Run{Command: s.Command, Args: s.Args, URL: s.URL, Transport: s.Type}
	if s.Command != "" {
		run.Line = trust.CommandLine(append([]string{s.Command}, s.Args...))
	}
	for _, k := range sortedKeys(s.Env) {
		run.Env = append(run.Env, k+"="+s.Env[k])
	}
	run.Headers = sortedKeys(s.Headers)
	return trust.Request{ID: trust.RequestID(trust.KindMCP, s.Name, fp), Kind: trust.KindMCP, Name: s.Name,
		Source: mcp.ProjectFile, Workspace: root, Fingerprint: fp, Runs: []trust.Run{run}, Files: files}
}

func hookRequest(root string, f hooks.File) trust.Request {
	fp, files := f.Fingerprinted()
	r := trust.Request{ID: trust.RequestID(trust.KindHook, f.Source, fp), Kind: trust.KindHook, Name: f.Source,
		Source: f.Source, Workspace: root, Fingerprint: fp, Files: files}
	for _, h := range f.Hooks {
		r.Runs = append(r.Runs, trust.Run{Event: h.Event, Matcher: h.Matcher, Command: h.Command, Timeout: h.Timeout.String()})
	}
	return r
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

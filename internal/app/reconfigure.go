package app

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/olly-agent/olly/internal/agent"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/models"
	"github.com/olly-agent/olly/internal/session"
)

// connectionKeys are the settings the model-server clients are built from:
// a change builds new clients.
var connectionKeys = []string{"baseUrl", "provider", "apiKey", "timeouts.connect", "timeouts.response", "timeouts.idle"}

// liveKeys are the settings a running olly applies from the next turn
// when they change (Reconfigure): the connection, the agent's settings
// (agent.ConfigFrom), the titles', and those each turn's tools read
// (toolEnv). Every other key is read once, when olly starts.
var liveKeys = append(slices.Clone(connectionKeys),
	"agentMode.model", "agentMode.temperature", "agentMode.maxTokens",
	"chatMode.model", "chatMode.temperature", "chatMode.maxTokens",
	"planMode.model", "planMode.temperature", "planMode.maxTokens",
	"agent.maxIterations", "agent.continuationStrategy", "agent.enableThinking", "agent.maxContextWindow",
	"contextWindow", "agent.keepAlive", "agent.explorerModel", "agent.orchestratorTools",
	"agent.sessionTitleGeneration", "agent.sessionTitleModel",
	"agent.toolTimeout", "agent.sensitiveFilePatterns", "agent.autoCreateBranch",
	"agent.maxActiveSessions")

// LiveSetting reports whether a running olly (olly serve, RPC mode, the
// terminal UI) applies key from its next turn when it changes; false
// means the key is read when olly starts, so a running one needs a
// restart to use a new value.
func LiveSetting(key string) bool { return slices.Contains(liveKeys, key) }

// Reconfigured says what a settings change did to the running olly.
type Reconfigured struct {
	// Applied are the changed keys the next turn uses.
	Applied []string
	// Restart are the changed keys this olly read when it started: they
	// apply after a restart.
	Restart []string
}

// Settings are the settings in use: those olly started with (Config), or
// the last ones Reconfigure applied.
func (a *App) Settings() *config.Config { return a.settings.Load() }

// Reconfigure makes the running olly use cfg, the settings just reloaded
// after a change (the settings page, set_setting). A change of the
// connection builds new model-server clients; the agent, the titles, the
// model listings and the embedder use the new clients and settings from
// the next turn on, while a turn in progress finishes with what it started
// with. Keys outside LiveSetting are reported in Restart and left as they
// were. On an error (a client that cannot be built) nothing changes.
func (a *App) Reconfigure(ctx context.Context, cfg *config.Config) (Reconfigured, error) {
	a.reconfigMu.Lock()
	defer a.reconfigMu.Unlock()
	old := a.Settings()
	var res Reconfigured
	for _, key := range changedKeys(old, cfg) {
		if LiveSetting(key) {
			res.Applied = append(res.Applied, key)
		} else {
			res.Restart = append(res.Restart, key)
		}
	}
	if len(res.Applied) == 0 {
		return res, ctx.Err()
	}
	turns, quick := a.live.clients()
	if slices.ContainsFunc(res.Applied, func(k string) bool { return slices.Contains(connectionKeys, k) }) {
		var err error
		if turns, err = a.newProvider(cfg, llm.DefaultRetry()); err != nil {
			return Reconfigured{}, fmt.Errorf("the new connection settings do not make a client (olly keeps %s): %w", old.BaseURL, err)
		}
		if quick, err = a.newProvider(cfg, llm.RetryPolicy{}); err != nil {
			return Reconfigured{}, fmt.Errorf("the new connection settings do not make a client (olly keeps %s): %w", old.BaseURL, err)
		}
	}
	if err := a.Agent.Reconfigure(turns, a.agentConfig(cfg)); err != nil {
		return Reconfigured{}, err
	}
	a.titles.set(agent.NewTitleGenerator(a.Agent, agent.TitleConfigFrom(&cfg.Settings)))
	a.Store.SetMaxGenerating(cfg.Agent.MaxActiveSessions)
	a.live.set(turns, quick)
	a.catalog.SetProvider(quick)
	a.settings.Store(cfg)
	a.Log.Info("settings applied", "keys", strings.Join(res.Applied, ","), "restart", strings.Join(res.Restart, ","))
	return res, nil
}

// changedKeys lists the keys whose values differ between two settings.
func changedKeys(before, after *config.Config) []string {
	var out []string
	for _, en := range after.Entries() {
		was, ok := before.Entry(en.Key)
		if !ok || was.Text() != en.Text() {
			out = append(out, en.Key)
		}
	}
	return out
}

// agentConfig is what the agent reads of cfg, with this olly's folders and
// the per-model context caps.
func (a *App) agentConfig(cfg *config.Config) agent.Config {
	c := agent.ConfigFrom(&cfg.Settings)
	c.ContextCap = a.contextCap // per-model num_ctx caps (`olly models`) win over agent.maxContextWindow
	// Each session's scratch directory for throwaway files lives under the
	// state directory and is deleted when its turn ends.
	c.ScratchDir = filepath.Join(cfg.Paths().StateDir, "scratch")
	c.UserConfigDir = cfg.Paths().ConfigDir // the person's AGENTS.md and skills
	return c
}

// newProvider builds a model-server client for cfg: Options.NewProvider,
// or the clients of the settings.
func (a *App) newProvider(cfg *config.Config, retry llm.RetryPolicy) (llm.Provider, error) {
	if a.makeProvider != nil {
		return a.makeProvider(cfg, retry)
	}
	return NewProviderWithRetry(cfg, retry)
}

// liveTitles writes titles with the generator of the current settings
// (session.TitleGenerator).
type liveTitles struct {
	g atomic.Pointer[agent.TitleGenerator]
}

func (t *liveTitles) set(g *agent.TitleGenerator) { t.g.Store(g) }

// GenerateTitle implements session.TitleGenerator.
func (t *liveTitles) GenerateTitle(ctx context.Context, prompt, sessionModel string) (string, error) {
	return t.g.Load().GenerateTitle(ctx, prompt, sessionModel)
}

var _ session.TitleGenerator = (*liveTitles)(nil)

// startClients sets up the model-server clients of the settings olly
// starts with: given (a test's, or the one the command line built) for
// turns, and a client without retries for the frontends' model catalog.
func (a *App) startClients(given llm.Provider) error {
	turns := given
	if turns == nil {
		var err error
		if turns, err = a.newProvider(a.Config, llm.DefaultRetry()); err != nil {
			return err
		}
	}
	quick, err := a.newProvider(a.Config, llm.RetryPolicy{})
	if err != nil {
		quick = turns
	}
	a.live.set(turns, quick)
	a.Provider = &a.live
	a.catalog = models.NewCatalog(quick).WithCache(a.Store)
	return nil
}

// Catalog is the model catalog of the interactive frontends (RPC, olly
// serve, the terminal UI), over the current settings' server. Its
// questions (pickers, set_model, get_state) are asked once, without
// retries: a server that is down is reported at once, and the person may
// ask again. Listings fill the models table, so disabled models are never
// offered.
func (a *App) Catalog() *models.Catalog { return a.catalog }

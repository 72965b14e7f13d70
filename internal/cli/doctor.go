package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/olly-agent/olly/internal/app"
	"github.com/olly-agent/olly/internal/config"
	"github.com/olly-agent/olly/internal/llm"
	"github.com/olly-agent/olly/internal/lsp"
	"github.com/olly-agent/olly/internal/models"
	"github.com/olly-agent/olly/internal/sandbox"
)

// Check statuses.
const (
	checkOK   = "ok"
	checkWarn = "warn"
	checkFail = "FAIL"
)

// check is one line of the doctor's report.
type check struct {
	Area   string `json:"area"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	// Fix says what to do, for warn and fail.
	Fix string `json:"fix,omitempty"`
}

type doctorOptions struct {
	IO       *IOStreams
	Config   func() (*config.Config, error)
	Paths    func() (config.Paths, error)
	JSON     bool
	Timeout  time.Duration
	LookPath func(string) (string, error)
	// ProbeLSP starts a language server to see that it works (nil: start
	// it for real).
	ProbeLSP func(ctx context.Context, s lsp.Server, lookPath func(string) (string, error)) lsp.ProbeResult
	// Workspace is the workspace whose MCP servers are checked (nil: none).
	Workspace func() (string, error)
}

func newDoctorCmd(f *Factory) *cobra.Command {
	opts := &doctorOptions{IO: f.IO, Config: f.Config, Timeout: 15 * time.Second, LookPath: exec.LookPath,
		Paths: func() (config.Paths, error) {
			lo, err := f.ConfigOptions()
			if err != nil {
				return config.Paths{}, err
			}
			return config.ResolvePaths(lo)
		},
		Workspace: func() (string, error) { return app.Workspace(f.Flags.Cwd) }}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the model server, models, language servers and data directory",
		Long: `Check that olly can work here: settings load, the model server answers, the
configured models are installed and can do their jobs, the embedding model is
there, language servers are on PATH, bash and git are available, and the data
directory is writable. Every problem is printed with its fix; the exit status is
1 when something is broken.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDoctor(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the checks as JSON")
	return cmd
}

func runDoctor(ctx context.Context, opts *doctorOptions) error {
	var checks []check
	cfg, err := opts.Config()
	if err != nil {
		checks = append(checks, check{Area: "settings", Status: checkFail, Detail: err.Error(),
			Fix: "fix the lines named above, or run `olly config unset KEY`; `olly config path` shows the files"})
	} else {
		checks = append(checks, settingsCheck(cfg))
		checks = append(checks, serverChecks(ctx, opts, cfg)...)
	}
	checks = append(checks, directoryChecks(opts, cfg)...)
	checks = append(checks, toolChecks(opts)...)
	checks = append(checks, sandboxCheck(cfg), memoryCheck())
	checks = append(checks, nestedGitChecks(opts, cfg)...)
	checks = append(checks, languageServerChecks(ctx, opts, cfg)...)
	checks = append(checks, mcpChecks(ctx, opts, cfg)...)
	if err := printChecks(opts, checks); err != nil {
		return err
	}
	for _, c := range checks {
		if c.Status == checkFail {
			return &ExitError{Code: ExitFailure}
		}
	}
	return nil
}

func settingsCheck(cfg *config.Config) check {
	p := cfg.Paths()
	return check{Area: "settings", Status: checkOK,
		Detail: fmt.Sprintf("loaded (global %s, project %s)", existsOr(p.GlobalFile), existsOr(p.ProjectFile))}
}

func existsOr(path string) string {
	if path == "" {
		return "none"
	}
	if _, err := os.Stat(path); err != nil {
		return path + " (not created)"
	}
	return path
}

// serverChecks ask the server who it is and check each configured model.
func serverChecks(ctx context.Context, opts *doctorOptions, cfg *config.Config) []check {
	// No retries: the doctor should answer now, and a server that is down
	// is what it has to report.
	p, err := app.NewProviderWithRetry(cfg, llm.RetryPolicy{})
	if err != nil {
		return []check{{Area: "server", Status: checkFail, Detail: err.Error(), Fix: "set baseUrl to the server's address, e.g. olly config set baseUrl http://localhost:11434"}}
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	cat := models.NewCatalog(p)
	list, err := cat.List(ctx)
	if err != nil {
		return []check{{Area: "server", Status: checkFail, Detail: err.Error(), Fix: serverFix(p, err)}}
	}
	detail := fmt.Sprintf("%s at %s answers, %d models", dialectName(p), p.BaseURL(), len(list))
	if v, err := p.Version(ctx); err == nil && v != "" {
		detail = fmt.Sprintf("%s %s at %s answers, %d models", dialectName(p), v, p.BaseURL(), len(list))
	}
	checks := []check{{Area: "server", Status: checkOK, Detail: detail}}
	installed := map[string]models.Model{}
	for _, m := range list {
		installed[m.Name] = m
	}
	checks = append(checks, agentModelCheck(ctx, cat, cfg, p))
	for _, role := range modelRoles(cfg) {
		checks = append(checks, roleCheck(role, installed, p))
	}
	return append(checks, embeddingCheck(cfg, installed, p))
}

func serverFix(p llm.Provider, err error) string {
	switch llm.KindOf(err) {
	case llm.KindConnection:
		if p.Dialect() == "ollama" {
			return "start Ollama (`ollama serve`), or point olly at it: olly config set baseUrl http://HOST:11434"
		}
		return "start the server, or point olly at it: olly config set baseUrl http://HOST:PORT"
	case llm.KindAuth:
		return "set the token: olly config set apiKey TOKEN (or OLLY_API_KEY)"
	}
	return "check baseUrl and provider (olly config list)"
}

func dialectName(p llm.Provider) string {
	if p.Dialect() == "ollama" {
		return "Ollama"
	}
	return "OpenAI-compatible server"
}

func agentModelCheck(ctx context.Context, cat *models.Catalog, cfg *config.Config, p llm.Provider) check {
	c := check{Area: "agent model"}
	choice, err := cat.PickAgent(ctx, cfg.AgentMode.Model)
	switch {
	case err != nil && llm.KindOf(err) == llm.KindModelNotFound:
		c.Status, c.Detail = checkFail, err.Error()
		c.Fix = pullFix(p, cfg.AgentMode.Model) + ", or choose an installed one: olly config set agentMode.model NAME"
	case err != nil:
		var none *models.ErrNoToolModel
		c.Status, c.Detail = checkFail, err.Error()
		if errors.As(err, &none) {
			c.Fix = "install a model that can call tools, or set agentMode.model"
		}
	case choice.Picked:
		c.Status, c.Detail = checkOK, choice.Reason
	case choice.Details != nil && !choice.Details.Capabilities.Tools:
		c.Status = checkWarn
		c.Detail = fmt.Sprintf("%s does not support native tool calling — olly will use text tool calls, which smaller models follow less reliably", choice.Name)
		c.Fix = "prefer a model with the tools capability (see `olly models`)"
	default:
		c.Status, c.Detail = checkOK, fmt.Sprintf("%s (%s)", choice.Name, capabilityWords(choice.Details.Capabilities))
	}
	return c
}

// modelRole is a configured model other than the agent's, and the
// capability its job needs.
type modelRole struct {
	key, name string
	need      func(llm.Capabilities) bool
	needWhat  string
}

func modelRoles(cfg *config.Config) []modelRole {
	chat := func(c llm.Capabilities) bool { return c.Chat || !c.Known }
	roles := []modelRole{
		{"chatMode.model", cfg.ChatMode.Model, chat, "chat"},
		{"planMode.model", cfg.PlanMode.Model, chat, "chat"},
		{"agent.explorerModel", cfg.Agent.ExplorerModel, func(c llm.Capabilities) bool { return c.Tools || !c.Known }, "tools"},
		{"completionMode.model", cfg.CompletionMode.Model, func(c llm.Capabilities) bool { return c.FIM || !c.Known }, "fim (fill-in-the-middle)"},
	}
	if cfg.Agent.SessionTitleGeneration == "selectModel" {
		roles = append(roles, modelRole{"agent.sessionTitleModel", cfg.Agent.SessionTitleModel, chat, "chat"})
	}
	var out []modelRole
	for _, r := range roles {
		if r.name != "" {
			out = append(out, r)
		}
	}
	return out
}

func roleCheck(r modelRole, installed map[string]models.Model, p llm.Provider) check {
	m, ok := installed[r.name]
	switch {
	case !ok:
		return check{Area: r.key, Status: checkFail, Detail: r.name + " is not installed", Fix: pullFix(p, r.name) + ", or change " + r.key}
	case m.Err != nil:
		return check{Area: r.key, Status: checkWarn, Detail: fmt.Sprintf("%s: capabilities unknown: %v", r.name, m.Err)}
	case !r.need(m.Capabilities):
		return check{Area: r.key, Status: checkWarn, Detail: fmt.Sprintf("%s lacks %s", r.name, r.needWhat), Fix: "choose a model with " + r.needWhat + " (see `olly models`)"}
	}
	return check{Area: r.key, Status: checkOK, Detail: fmt.Sprintf("%s (%s)", r.name, capabilityWords(m.Capabilities))}
}

func embeddingCheck(cfg *config.Config, installed map[string]models.Model, p llm.Provider) check {
	name := cfg.Embedding.Model
	c := check{Area: "embedding model"}
	if name == "" {
		c.Status, c.Detail = checkWarn, "not set: session search matches words only"
		c.Fix = "for search by meaning: " + pullFix(p, "nomic-embed-text") + " and olly config set embedding.model nomic-embed-text"
		return c
	}
	m, ok := installed[name]
	if !ok {
		// Ollama lists "nomic-embed-text:latest" for "nomic-embed-text".
		m, ok = installed[name+":latest"]
	}
	switch {
	case !ok:
		c.Status, c.Detail = checkWarn, name+" is not installed: session search matches words only"
		c.Fix = pullFix(p, name)
	case m.Capabilities.Known && !m.Capabilities.Embedding:
		c.Status, c.Detail = checkWarn, name+" is not an embedding model"
		c.Fix = "set embedding.model to an embedding model such as nomic-embed-text"
	default:
		c.Status, c.Detail = checkOK, m.Name
	}
	return c
}

func pullFix(p llm.Provider, name string) string {
	if p.Dialect() == "ollama" {
		return "run `ollama pull " + name + "`"
	}
	return "load " + name + " in your server"
}

// directoryChecks make sure olly can write its data and logs.
func directoryChecks(opts *doctorOptions, cfg *config.Config) []check {
	var paths config.Paths
	if cfg != nil {
		paths = cfg.Paths()
	} else if p, err := opts.Paths(); err == nil {
		paths = p
	} else {
		return []check{{Area: "data directory", Status: checkFail, Detail: err.Error(), Fix: "set HOME or XDG_DATA_HOME"}}
	}
	return []check{
		writableCheck("data directory", paths.DataDir, "set storagePath to a writable directory, or fix the permissions"),
		writableCheck("state directory", paths.StateDir, "set XDG_STATE_HOME to a writable directory, or fix the permissions"),
	}
}

func writableCheck(area, dir, fix string) check {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return check{Area: area, Status: checkFail, Detail: err.Error(), Fix: fix}
	}
	f, err := os.CreateTemp(dir, ".olly-doctor-*")
	if err != nil {
		return check{Area: area, Status: checkFail, Detail: err.Error(), Fix: fix}
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return check{Area: area, Status: checkOK, Detail: dir + " is writable"}
}

// toolChecks look for the programs olly runs.
func toolChecks(opts *doctorOptions) []check {
	var out []check
	if path, err := opts.LookPath("bash"); err != nil {
		out = append(out, check{Area: "bash", Status: checkFail, Detail: "bash is not on PATH: the agent cannot run commands", Fix: "install bash 4.4 or newer"})
	} else if v, err := exec.Command(path, "-c", "echo ${BASH_VERSINFO[0]}.${BASH_VERSINFO[1]}").Output(); err == nil {
		out = append(out, check{Area: "bash", Status: checkOK, Detail: path + " " + strings.TrimSpace(string(v))})
	}
	if path, err := opts.LookPath("git"); err != nil {
		out = append(out, check{Area: "git", Status: checkWarn, Detail: "git is not on PATH: no project git context, no agent branches", Fix: "install git"})
	} else {
		out = append(out, check{Area: "git", Status: checkOK, Detail: path})
	}
	return out
}

// languageServerChecks report, for each language of the server table
// (with lsp.servers applied), which files its server covers, whether it is
// on PATH, and whether it really starts: a server that is installed but
// crashes at start would otherwise look fine here and fail the agent.
func languageServerChecks(ctx context.Context, opts *doctorOptions, cfg *config.Config) []check {
	servers := lsp.DefaultServers()
	if cfg != nil {
		var err error
		if servers, err = lsp.ServersWith(cfg.LSP.Servers); err != nil {
			return []check{{Area: "lsp", Status: checkFail, Detail: err.Error(), Fix: "fix lsp.servers in your global config (olly config path)"}}
		}
	}
	probe := opts.ProbeLSP
	if probe == nil {
		probe = probeLanguageServer
	}
	out := make([]check, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = languageServerCheck(ctx, opts, s, probe)
		}()
	}
	wg.Wait()
	return out
}

func languageServerCheck(ctx context.Context, opts *doctorOptions, s lsp.Server, probe func(context.Context, lsp.Server, func(string) (string, error)) lsp.ProbeResult) check {
	c := check{Area: "lsp " + s.Language}
	files := strings.Join(s.Extensions, " ")
	r := probe(ctx, s, opts.LookPath)
	switch {
	case !r.Found:
		c.Status = checkWarn
		c.Detail = fmt.Sprintf("%s not found: no diagnostics or code navigation for %s files", s.Command, files)
		c.Fix = s.Install
	case !r.Started:
		c.Status = checkWarn
		c.Detail = fmt.Sprintf("%s (%s) is installed but did not start: %v", r.Resolved.Command, r.Resolved.Path, r.Err)
		c.Fix = "reinstall it (" + s.Install + "), or run it by hand to see why it fails"
	default:
		c.Status = checkOK
		c.Detail = fmt.Sprintf("%s started in %s (%s) for %s files", r.Info, r.Took.Round(time.Millisecond), r.Resolved.Path, files)
	}
	return c
}

// probeLanguageServer starts a found server in an empty temporary
// directory (quick, and nothing of the person's is indexed), runs the
// handshake and stops it.
func probeLanguageServer(ctx context.Context, s lsp.Server, lookPath func(string) (string, error)) lsp.ProbeResult {
	if _, ok := s.Resolve(lookPath); !ok {
		return lsp.ProbeResult{Server: s}
	}
	dir, err := os.MkdirTemp("", "olly-doctor-lsp-*")
	if err != nil {
		return lsp.ProbeResult{Server: s, Found: true, Err: err}
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	return lsp.Probe(ctx, s, dir, lsp.Options{LookPath: lookPath})
}

func printChecks(opts *doctorOptions, checks []check) error {
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(checks)
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 0, 2, ' ', 0)
	for _, c := range checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Status, c.Area, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(tw, "\t\t  fix: %s\n", c.Fix)
		}
	}
	return tw.Flush()
}

// sandboxCheck reports whether commands can be confined here, proving it
// with a probe: a command in the read-only sandbox must run, and its write
// must be refused.
func sandboxCheck(cfg *config.Config) check {
	sb := sandbox.New("")
	summary := ""
	if cfg != nil {
		summary = app.PolicySummary(cfg, sb)
	}
	st := sb.Status()
	if !st.Active() {
		return check{Area: "sandbox", Status: checkWarn, Detail: "no sandbox: " + st.Reason + ". " + summary,
			Fix: "use Linux 5.13+ with Landlock enabled (lsm=landlock), or macOS; until then every command that is not read-only asks, and --yes runs commands unconfined"}
	}
	if err := probeSandbox(sb); err != nil {
		return check{Area: "sandbox", Status: checkFail, Detail: st.String() + " is present but does not work: " + err.Error(),
			Fix: "report this; meanwhile set approval.mode to ask"}
	}
	if st.Git == sandbox.GitSplit {
		return check{Area: "sandbox", Status: checkWarn, Detail: st.String() + " confines commands. " + summary,
			Fix: "allow unprivileged user namespaces (Debian: sysctl kernel.unprivileged_userns_clone=1; Ubuntu 24.04+: kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile for olly that allows userns) so a mount namespace keeps .git read-only and commands can create files at a repository's top level"}
	}
	return check{Area: "sandbox", Status: checkOK, Detail: st.String() + " confines commands. " + summary}
}

func probeSandbox(sb *sandbox.Sandbox) error {
	dir, err := os.MkdirTemp("", "olly-doctor-sandbox-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	state := filepath.Join(dir, "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		return err
	}
	target := filepath.Join(dir, "written")
	argv, err := sb.Wrap(sandbox.Spec{Policy: sandbox.ReadOnly, Own: []string{state}},
		[]string{"sh", "-c", `echo ok > "$1"/ok && { echo x > "$2"; } 2>/dev/null; exit 0`, "sh", state, target})
	if err != nil {
		return err
	}
	if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
		return fmt.Errorf("a sandboxed command failed: %v: %s", err, strings.TrimSpace(string(out)))
	}
	if _, err := os.Stat(filepath.Join(state, "ok")); err != nil {
		return errors.New("a sandboxed command could not write its own folder")
	}
	if _, err := os.Stat(target); err == nil {
		return errors.New("a sandboxed command wrote outside the places it may")
	}
	return nil
}

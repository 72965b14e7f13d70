package config

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// Paths are where olly keeps its files.
type Paths struct {
	// GlobalFile is $XDG_CONFIG_HOME/olly/config.yaml (~/.config/olly/config.yaml).
	GlobalFile string `json:"globalFile"`
	// ProjectFile is <workspace>/.olly/config.yaml; empty without a workspace.
	ProjectFile string `json:"projectFile,omitempty"`
	// ConfigDir holds the global file.
	ConfigDir string `json:"configDir"`
	// DataDir holds the database and artifacts: storagePath when set,
	// otherwise $XDG_DATA_HOME/olly (~/.local/share/olly).
	DataDir string `json:"dataDir"`
	// StateDir holds logs: $XDG_STATE_HOME/olly (~/.local/state/olly).
	StateDir string `json:"stateDir"`
}

// ProjectFileName is the project file's path inside a workspace.
const ProjectFileName = ".olly/config.yaml"

// environ is the part of the environment settings read.
type environ struct {
	xdg  map[string]string
	olly [][2]string // OLLY_* name and value, sorted by name
}

func parseEnviron(list []string) environ {
	env := environ{xdg: map[string]string{}}
	for _, kv := range list {
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		switch {
		case strings.HasPrefix(name, "OLLY_"):
			env.olly = append(env.olly, [2]string{name, value})
		case strings.HasPrefix(name, "XDG_"):
			env.xdg[name] = value
		}
	}
	sort.SliceStable(env.olly, func(i, j int) bool { return env.olly[i][0] < env.olly[j][0] })
	return env
}

// ResolvePaths finds the settings files and directories without reading any
// file, so `olly config path` can answer even when a file is broken. DataDir
// is the default one: storagePath is only known after loading.
func ResolvePaths(opts LoadOptions) (Paths, error) {
	p, _, err := resolvePaths(parseEnviron(opts.Environ), opts.Home, opts.Workspace)
	return p, err
}

// resolvePaths follows the XDG base directory rules: a variable that is
// unset, empty or relative is ignored (the specification says so), falling
// back to a directory under home. Ignoring a relative one is reported as a
// warning, since someone set it on purpose.
func resolvePaths(env environ, home, workspace string) (Paths, []string, error) {
	var warnings []string
	base := func(name, fallback string) (string, error) {
		if v := env.xdg[name]; v != "" {
			if filepath.IsAbs(v) {
				return filepath.Join(v, "olly"), nil
			}
			warnings = append(warnings, fmt.Sprintf("%s=%q is not an absolute path; ignored as the XDG specification requires", name, v))
		}
		if home == "" || !filepath.IsAbs(home) {
			return "", fmt.Errorf("cannot place olly's files: the home directory is unknown (%q); set HOME, or %s", home, name)
		}
		return filepath.Join(home, fallback, "olly"), nil
	}
	var p Paths
	var err error
	if p.ConfigDir, err = base("XDG_CONFIG_HOME", ".config"); err != nil {
		return p, warnings, err
	}
	if p.DataDir, err = base("XDG_DATA_HOME", filepath.Join(".local", "share")); err != nil {
		return p, warnings, err
	}
	if p.StateDir, err = base("XDG_STATE_HOME", filepath.Join(".local", "state")); err != nil {
		return p, warnings, err
	}
	p.GlobalFile = filepath.Join(p.ConfigDir, "config.yaml")
	if workspace != "" {
		abs, err := filepath.Abs(workspace)
		if err != nil {
			return p, warnings, fmt.Errorf("workspace %s: %w", workspace, err)
		}
		p.ProjectFile = filepath.Join(abs, filepath.FromSlash(ProjectFileName))
	}
	return p, warnings, nil
}

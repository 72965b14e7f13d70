package sandbox

import (
	"os"
	"path/filepath"
)

// DefaultDenyRead returns the paths no sandboxed command may read, under
// home: keys, credentials and tokens of the usual tools. olly adds its own
// data, settings and state folders, and sandbox.denyRead adds more.
func DefaultDenyRead(home string) []string {
	rel := []string{
		".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".kube", ".docker/config.json",
		".netrc", ".git-credentials", ".config/git/credentials", ".npmrc", ".yarnrc.yml", ".pypirc",
		".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials", ".config/gh", ".config/hub",
		".password-store", ".local/share/keyrings", ".terraform.d/credentials.tfrc.json", ".vault-token",
		".config/op", ".m2/settings-security.xml", ".pgpass", ".my.cnf",
	}
	var out []string
	if home != "" {
		for _, r := range rel {
			out = append(out, filepath.Join(home, r))
		}
	}
	// Only root can read these anyway; olly may run as root (containers).
	return append(out, "/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/etc/ssh/ssh_host_rsa_key",
		"/etc/ssh/ssh_host_ecdsa_key", "/etc/ssh/ssh_host_ed25519_key")
}

// EnvCaches returns the build caches the environment names (GOCACHE,
// GOMODCACHE, GOPATH's module cache, npm's, cargo's, pip's, XDG_CACHE_HOME),
// added to sandbox.writable so go build and npm test work wherever the
// caches are.
func EnvCaches(getenv func(string) string) []string {
	var out []string
	add := func(p string) {
		if filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "npm_config_cache", "PIP_CACHE_DIR", "XDG_CACHE_HOME", "YARN_CACHE_FOLDER"} {
		add(getenv(v))
	}
	if gp := getenv("GOPATH"); gp != "" {
		add(filepath.Join(filepath.SplitList(gp)[0], "pkg", "mod"))
	}
	if ch := getenv("CARGO_HOME"); ch != "" {
		add(filepath.Join(ch, "registry"))
		add(filepath.Join(ch, "git"))
	}
	return out
}

// ExpandHome replaces a leading ~ in each path with home, and drops paths
// that are then not absolute.
func ExpandHome(paths []string, home string) []string {
	var out []string
	for _, p := range paths {
		switch {
		case p == "~":
			p = home
		case len(p) > 1 && p[:2] == "~/":
			if home == "" {
				continue
			}
			p = filepath.Join(home, p[2:])
		}
		if filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}

// Home returns the user's home folder, or "".
func Home() string {
	h, _ := os.UserHomeDir()
	return h
}

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

// DefaultWritable returns the build caches toolchains write, under home
// and from the environment (GOCACHE, GOMODCACHE, …), so go build, npm test
// and cargo build work in the workspace-write sandbox. sandbox.writable
// replaces this list.
func DefaultWritable(home string, getenv func(string) string) []string {
	var out []string
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "npm_config_cache", "CARGO_HOME", "PIP_CACHE_DIR", "XDG_CACHE_HOME"} {
		if p := getenv(v); filepath.IsAbs(p) {
			out = append(out, p)
		}
	}
	if home != "" {
		for _, r := range []string{".cache", "go/pkg/mod", ".npm", ".cargo/registry", ".cargo/git", ".m2/repository", ".gradle/caches", ".rustup/tmp", ".yarn/berry/cache", ".pnpm-store"} {
			out = append(out, filepath.Join(home, r))
		}
	}
	return out
}

// Home returns the user's home folder, or "".
func Home() string {
	h, _ := os.UserHomeDir()
	return h
}

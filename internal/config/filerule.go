package config

// FileAction says what happens when the agent edits a file a rule matches.
// Explicit words instead of the seed's booleans, whose meaning was inverted
// from their name ("true" meant "not sensitive") and was misread again and
// again (seed pitfalls #4 and #6).
type FileAction string

// The two actions.
const (
	// FileAsk asks the person before the edit, showing the diff.
	FileAsk FileAction = "ask"
	// FileAuto lets the edit happen without asking.
	FileAuto FileAction = "auto"
)

// FileRule maps a glob (doublestar syntax, matched against the
// workspace-relative path with forward slashes) to an action. Rules are
// evaluated in order and the last match wins.
type FileRule struct {
	Pattern string     `json:"pattern" yaml:"pattern"`
	Action  FileAction `json:"action" yaml:"action"`
}

// DefaultFileRules are the seed project's default sensitive-file patterns,
// in its order: everything may be edited, except environment files, editor
// settings, manifests and lock files, keys and certificates, build and
// container configuration, CI workflows, package-manager credentials and
// secrets files.
func DefaultFileRules() []FileRule {
	return []FileRule{
		{"**/*", FileAuto},
		{"**/.env*", FileAsk},
		{"**/.vscode/*.json", FileAsk},
		{"**/package.json", FileAsk},
		{"**/package-lock.json", FileAsk},
		{"**/yarn.lock", FileAsk},
		{"**/pnpm-lock.yaml", FileAsk},
		{"**/*.pem", FileAsk},
		{"**/*.key", FileAsk},
		{"**/*.pfx", FileAsk},
		{"**/*.p12", FileAsk},
		{"**/tsconfig.json", FileAsk},
		{"**/jsconfig.json", FileAsk},
		{"**/Dockerfile", FileAsk},
		{"**/docker-compose*.yml", FileAsk},
		{"**/docker-compose*.yaml", FileAsk},
		{"**/.github/workflows/*", FileAsk},
		{"**/.npmrc", FileAsk},
		{"**/.yarnrc", FileAsk},
		{"**/.yarnrc.yml", FileAsk},
		{"**/*.secrets.*", FileAsk},
		// olly's additions: the same kinds of file for the languages the
		// seed (a TypeScript project) did not list.
		{"**/go.mod", FileAsk},
		{"**/go.sum", FileAsk},
		{"**/Cargo.lock", FileAsk},
		{"**/poetry.lock", FileAsk},
		{"**/uv.lock", FileAsk},
		{"**/id_rsa*", FileAsk},
		{"**/id_ed25519*", FileAsk},
		{"**/.gitlab-ci.yml", FileAsk},
		{"**/.olly/config.yaml", FileAsk},
	}
}

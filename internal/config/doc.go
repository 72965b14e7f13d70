// Package config loads olly's settings: built-in defaults, then the global
// file ($XDG_CONFIG_HOME/olly/config.yaml), the project file
// (<workspace>/.olly/config.yaml), OLLY_* environment variables, command-line
// flags and per-session overrides, each layer overriding the one before.
// Every effective value remembers where it came from (see Source), and every
// bad input is an error naming the file and line, variable or flag — nothing
// is silently ignored.
//
// # Adding a setting
//
// A setting is one field with tags on Settings (or on one of the structs it
// nests, such as AgentSettings). Nothing else needs to change: the key, its
// OLLY_* variable, its default, validation, `olly config` listing, completion
// and the reference table in docs/configuration.md all come from the field.
//
//	MaxIterations int `key:"maxIterations" default:"25" min:"1" max:"1000" doc:"Most tool rounds in one agent run."`
//
// The tags:
//
//   - key: the name within its group; the full key joins the group keys with
//     dots ("agent.maxIterations"), and the environment variable is the full
//     key in upper snake case with an OLLY_ prefix (OLLY_AGENT_MAX_ITERATIONS).
//   - default: the default, written as a person would write it in the file
//     (YAML, or the text form for durations and lists). A rule list may name
//     DefaultFileRules() instead.
//   - min, max: the inclusive range of an int, float64 or time.Duration (in
//     milliseconds), or the least number of items of a list.
//   - enum: the allowed values of a string, separated by "|".
//   - check: a named format check for a string: "url", "keepAlive", "absPath".
//   - secret:"true": masked wherever settings are listed.
//   - userOnly:"true": refused in a project file, because a repository
//     someone clones could use it against them (server address, token, data
//     directory, approval rules; any key that starts programs). Such keys
//     come only from the global file, the environment, flags or the session.
//   - doc: one or two sentences for listings and the documentation.
//   - renamedFrom: on a group, old group names ("askMode|editMode") that are
//     still recognised so that using them is an error naming the new key.
//
// The Go type chooses how values are read: string, int, float64, bool,
// time.Duration (milliseconds, or a duration string such as "45s"),
// []string and []FileRule. A group field (a struct) may set its children's
// tags for that group only, as "<child>.<tag>", which is how the four mode
// groups share ModeSettings with different defaults and ranges.
//
// After adding a key, run `go test ./internal/config -update` to regenerate
// the reference table in docs/configuration.md.
package config

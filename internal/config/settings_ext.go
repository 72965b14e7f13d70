package config

import "time"

// HooksSettings turn the person's hook commands on and off
// (docs/extensibility.md). The hooks themselves live in settings.json
// files in Claude Code's format, not here.
type HooksSettings struct {
	Enabled      bool `key:"enabled" userOnly:"true" default:"true" doc:"Run hooks: ~/.config/olly/settings.json, and the project's .olly/settings.json once trusted (olly hooks trust). Off: no hook runs. User-only."`
	ClaudeCompat bool `key:"claudeCompat" userOnly:"true" default:"true" doc:"Also read the hooks of the project's .claude/settings.json (Claude Code's format; they need trust like olly's project hooks). User-only."`
}

// WebSettings shape the web_fetch and web_search tools
// (docs/extensibility.md).
type WebSettings struct {
	AllowHosts    []string      `key:"allowHosts" userOnly:"true" default:"[]" doc:"Hosts web_fetch may reach although they resolve to a loopback, private, link-local or otherwise internal address: host names, IP addresses or CIDR ranges (\"localhost\", \"10.0.0.0/8\"). Empty: internal addresses are refused. User-only."`
	FetchTimeout  time.Duration `key:"fetchTimeout" default:"30000" min:"1000" max:"300000" doc:"How long one web_fetch may take, redirects included. Milliseconds, or a duration such as 30s."`
	FetchMaxChars int           `key:"fetchMaxChars" default:"60000" min:"1000" max:"1000000" doc:"The most characters of a fetched page's Markdown the model receives; the rest is cut."`
	SearxngURL    string        `key:"searxngUrl" userOnly:"true" check:"optionalUrl" doc:"A SearXNG instance for web_search (its JSON API must be enabled), such as http://localhost:8888. Wins over the Ollama key. Empty and no key: no web_search tool. User-only."`
	OllamaAPIKey  string        `key:"ollamaApiKey" userOnly:"true" secret:"true" doc:"An ollama.com API key for web_search through Ollama's web search API (https://ollama.com/api/web_search). Masked in listings. User-only."`
	SearchResults int           `key:"searchResults" default:"5" min:"1" max:"20" doc:"How many results web_search returns."`
}

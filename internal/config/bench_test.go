package config

import "testing"

const typicalGlobal = `# olly settings
baseUrl: http://localhost:11434
apiKey: ""

agentMode:
  model: qwen2.5-coder:14b
  temperature: 0.4
chatMode:
  model: llama3.1:8b
completionMode:
  model: qwen2.5-coder:1.5b-base
  maxTokens: 256

agent:
  maxIterations: 40
  toolTimeout: 2m
  keepAlive: 30m
  explorerModel: qwen2.5-coder:7b
  sessionTitleGeneration: currentModel
  sensitiveFilePatterns:
    "**/*": auto
    "**/.env*": ask
    "**/*.pem": ask
    "**/go.sum": ask

embedding.model: nomic-embed-text
`

const typicalProject = `# this repository
agent.maxContextWindow: 32768
agent:
  orchestratorTools: [write_file, run_terminal_command, run_subagent]
  autoCreateBranch: true
`

// BenchmarkLoad measures what every olly start pays: two typical files, a
// typical environment, one flag.
func BenchmarkLoad(b *testing.B) {
	home, ws := b.TempDir(), b.TempDir()
	writeFile(b, globalPath(home), typicalGlobal)
	writeFile(b, projectPath(ws), typicalProject)
	opts := LoadOptions{
		Home: home, Workspace: ws,
		Environ: []string{"PATH=/usr/bin:/bin", "HOME=" + home, "TERM=xterm", "LANG=C.UTF-8", "OLLY_AGENT_MAX_ITERATIONS=30"},
		Flags:   []FlagValue{{Flag: "--model", Key: "agentMode.model", Value: "qwen3:8b"}},
	}
	mustLoad(b, opts)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Load(opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadDefaults is the floor: no files, no variables.
func BenchmarkLoadDefaults(b *testing.B) {
	opts := LoadOptions{Home: b.TempDir()}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(opts); err != nil {
			b.Fatal(err)
		}
	}
}

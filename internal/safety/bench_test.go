package safety

import "testing"

// typicalCommands are what a coding agent runs most: builds, tests, git,
// searches, installs, a few pipelines and one wrapper.
var typicalCommands = []string{
	"ls -la",
	"git status",
	"git diff HEAD~1 -- internal/safety/analyze.go",
	"go build ./...",
	"go test -race ./internal/safety/...",
	"npm install",
	"npm run build && npm test",
	"grep -rn \"TODO\" --include='*.go' .",
	"find . -name '*.go' -not -path './vendor/*' | xargs wc -l",
	"cat package.json | jq '.dependencies'",
	"rm -rf build dist",
	"mkdir -p build/out && cp -r assets build/out/",
	"python3 -m pytest tests/ -x -q",
	"docker build -t app:dev .",
	"curl -s https://api.github.com/repos/olly-agent/olly | jq .stargazers_count",
	"sed -i 's/old/new/g' src/main.go",
	"git add -A && git commit -m 'refactor: split analyzer'",
	"cd web && pnpm install && pnpm run lint",
	"for f in *.md; do echo \"$f\"; wc -w \"$f\"; done",
	"sudo apt-get install -y build-essential",
}

func BenchmarkAnalyze(b *testing.B) {
	opts := testOpts()
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range typicalCommands {
			Analyze(c, opts)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(typicalCommands))/1000, "µs/command")
}

// BenchmarkReadOnly is ReadOnly alone (the terminal tool calls Check,
// which gives ReadOnly's answer from the parse it shares with Analyze).
func BenchmarkReadOnly(b *testing.B) {
	opts := testOpts()
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range typicalCommands {
			ReadOnly(c, opts)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(typicalCommands))/1000, "µs/command")
}

// BenchmarkTerminalChecks is what the terminal tool and the shell spend
// deciding about one command: "check" with Check (one parse). The
// "separate" figure of docs/performance.md (Analyze and ReadOnly each
// parsing it, then the shell's old tokenizer looking for set -n) is
// measured in a build of 19dad27, which has that tokenizer.
func BenchmarkTerminalChecks(b *testing.B) {
	opts := testOpts()
	b.Run("check", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, c := range typicalCommands {
				Check(c, opts)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(typicalCommands))/1000, "µs/command")
	})
}

// installScript is a longer, realistic script: functions, loops, a
// here-document, nested bash -c, a download to a file.
const installScript = `#!/usr/bin/env bash
set -euo pipefail
PREFIX="${PREFIX:-$HOME/.local}"
log() { printf '%s\n' "$*" >&2; }
cleanup() { rm -rf "$tmp"; }
tmp=$(mktemp -d)
trap cleanup EXIT
cd "$tmp"
curl -fsSL -o tool.tgz https://example.com/tool-1.2.3.tgz
tar xzf tool.tgz
for f in bin/*; do
  install -m 755 "$f" "$PREFIX/bin/"
done
if ! grep -q "$PREFIX/bin" ~/.bashrc; then
  echo "export PATH=$PREFIX/bin:\$PATH" >> ~/.bashrc
fi
cat > "$PREFIX/etc/tool.conf" <<END
home = $HOME
END
bash -c 'echo installed' && log done
`

func BenchmarkAnalyzeScript(b *testing.B) {
	opts := testOpts()
	b.ReportAllocs()
	for b.Loop() {
		Analyze(installScript, opts)
	}
}

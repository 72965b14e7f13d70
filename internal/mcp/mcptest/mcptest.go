// Package mcptest finds real MCP servers for tests: the reference
// @modelcontextprotocol/server-everything from npm (installed by .ci/run
// into a cache folder), and a tiny stdio server that dies when called.
// Tests skip, saying how to install what is missing.
package mcptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// EverythingVersion is the npm version .ci/run installs.
const EverythingVersion = "2026.8.31"

// Node returns the node executable, or skips.
func Node(t testing.TB) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed (apt-get install nodejs npm): the MCP end-to-end tests need it")
	}
	return node
}

// Everything returns node and the path of server-everything's entry
// point (run it with the argument stdio), or skips. OLLY_TEST_MCP_EVERYTHING
// names the entry point; otherwise the cache folder .ci/run fills is used.
func Everything(t testing.TB) (node, script string) {
	t.Helper()
	node = Node(t)
	script = os.Getenv("OLLY_TEST_MCP_EVERYTHING")
	if script == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache")
		}
		script = filepath.Join(cache, "olly-ci", "mcp-everything-"+EverythingVersion,
			"node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	}
	if _, err := os.Stat(script); err != nil {
		t.Skipf("@modelcontextprotocol/server-everything is not installed at %s: run .ci/run, or npm install --prefix DIR @modelcontextprotocol/server-everything@%s and set OLLY_TEST_MCP_EVERYTHING to DIR/node_modules/@modelcontextprotocol/server-everything/dist/index.js", script, EverythingVersion)
	}
	return node, script
}

// flaky is a minimal MCP server over stdio: it initialises, lists one tool
// (die) and exits with status 3 when the tool is called, as a server that
// crashes mid-call does.
const flaky = `const rl = require('readline').createInterface({input: process.stdin});
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
rl.on('line', (line) => {
  let m; try { m = JSON.parse(line); } catch { return; }
  if (m.method === 'initialize') {
    send({jsonrpc: '2.0', id: m.id, result: {protocolVersion: m.params.protocolVersion,
      capabilities: {tools: {}}, serverInfo: {name: 'flaky', version: '1'}}});
  } else if (m.method === 'tools/list') {
    send({jsonrpc: '2.0', id: m.id, result: {tools: [{name: 'die', description: 'Exits mid-call.',
      inputSchema: {type: 'object', properties: {}}}]}});
  } else if (m.method === 'tools/call') {
    process.stderr.write('flaky: dying on purpose\n');
    process.exit(3);
  } else if (m.id !== undefined) {
    send({jsonrpc: '2.0', id: m.id, result: {}});
  }
});
`

// Flaky writes the dying server into dir and returns node and its path.
func Flaky(t testing.TB, dir string) (node, script string) {
	t.Helper()
	node = Node(t)
	script = filepath.Join(dir, "flaky.js")
	if err := os.WriteFile(script, []byte(flaky), 0o644); err != nil {
		t.Fatal(err)
	}
	return node, script
}

//go:build !race

package ollama_test

// bigLine is the size of the long-line test's tool call: tens of MB, as a
// tool call that writes a whole file can be.
const bigLine = 24 << 20

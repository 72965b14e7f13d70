//go:build race

package ollama_test

// bigLine is the size of the long-line test's tool call. The race detector
// slows byte-by-byte scanning about tenfold, so under it the test uses a
// line that is still far above any line-length limit, and the tens-of-MB
// case is left to the normal run.
const bigLine = 8 << 20

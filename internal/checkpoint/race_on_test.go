//go:build race

package checkpoint

// raceEnabled: the race detector slows the property test about sevenfold.
const raceEnabled = true

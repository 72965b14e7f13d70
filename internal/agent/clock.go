package agent

import "time"

// Clock tells the time and makes tickers. The stream processor's 32 ms
// throttle and thinking durations use it, so tests drive time by hand.
type Clock interface {
	Now() time.Time
	NewTicker(d time.Duration) Ticker
}

// Ticker delivers ticks until stopped.
type Ticker interface {
	C() <-chan time.Time
	Stop()
}

// realClock is the system clock.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) NewTicker(d time.Duration) Ticker { return realTicker{time.NewTicker(d)} }

type realTicker struct{ t *time.Ticker }

func (r realTicker) C() <-chan time.Time { return r.t.C }
func (r realTicker) Stop()               { r.t.Stop() }

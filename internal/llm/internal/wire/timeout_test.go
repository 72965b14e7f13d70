package wire

import (
	"context"
	"errors"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/olly-agent/olly/internal/llm"
)

// TestIdleBodyTimesOutOnlyOnSilence: a body whose pieces come a quarter
// of the idle timeout apart is read to its end though it lasts longer
// than the timeout (each read re-arms it); one that then goes silent
// fails with timeouts.idle. On the fake clock of a synctest bubble: the
// same check through a real server (wiretest's steady stream) timed out
// on a loaded machine, whose stalls stretched the gaps past the timeout.
func TestIdleBodyTimesOutOnlyOnSilence(t *testing.T) {
	for _, tc := range []struct {
		name   string
		silent bool // the body goes silent after its pieces
	}{
		{"steady", false},
		{"then silent", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const idle = time.Second
				pr, pw := io.Pipe()
				actx, cancel := context.WithCancelCause(context.Background())
				body := newIdleBody(pr, actx, cancel, idle)
				// As the transport does: the attempt's context ending
				// aborts the read.
				context.AfterFunc(actx, func() { _ = pr.CloseWithError(context.Cause(actx)) })
				go func() {
					for range 8 {
						time.Sleep(idle / 4)
						if _, err := pw.Write([]byte("x")); err != nil {
							return
						}
					}
					if tc.silent {
						<-actx.Done()
						return
					}
					_ = pw.Close()
				}()
				start := time.Now()
				b, err := io.ReadAll(body)
				_ = body.Close()
				var te *llm.TimeoutError
				switch {
				case string(b) != "xxxxxxxx":
					t.Errorf("read %q (%v), want the 8 pieces", b, err)
				case !tc.silent && err != nil:
					t.Errorf("a steady body lasting %s failed: %v", time.Since(start), err)
				case tc.silent && (!errors.As(err, &te) || te.Setting != "timeouts.idle" || time.Since(start) != 3*idle):
					t.Errorf("a silent body: %v after %s, want timeouts.idle after %s", err, time.Since(start), 3*idle)
				}
			})
		})
	}
}

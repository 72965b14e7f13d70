package shell

import (
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuf is a pump's destination the test reads while the pump runs.
type lockedBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestSettleWaitsForUnreadOutput: output a command wrote before it ended
// belongs to its result even when olly's reader has not run within
// eofGrace (a loaded machine: the pump starts here only after the grace).
// It went to the background log, and the result said something still held
// the output. A pipe a job still holds is given up once that output is
// read, also while the job keeps writing (bound: an hour, which a wait
// for the pipe to empty would hang on).
func TestSettleWaitsForUnreadOutput(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("outputUnread cannot tell here")
	}
	for _, tc := range []struct {
		name   string
		holds  bool // a job keeps the write end: no end of file
		writes bool // and keeps writing
		want   bool
	}{
		{"all writers gone", false, false, true},
		{"a job holds the pipe", true, false, false},
		{"a job keeps writing", true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rd, wr, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = wr.Close() }()
			if _, err := wr.WriteString("output\n"); err != nil {
				t.Fatal(err)
			}
			if !tc.holds {
				_ = wr.Close()
			}
			var got lockedBuf
			p := newPump(rd, &got)
			late := time.AfterFunc(50*time.Millisecond, func() {
				if tc.writes {
					go func() {
						for {
							if _, err := wr.WriteString("more\n"); err != nil {
								return // the pump stopped: the pipe is closed
							}
						}
					}()
				}
				p.run()
			})
			eof := p.settle(time.Millisecond, time.Hour)
			if late.Stop() {
				go p.run()
			}
			p.stop() // (what it read is written before it ends)
			<-p.eof
			if eof != tc.want || !strings.HasPrefix(got.String(), "output\n") {
				t.Errorf("settle = %v with %.40q taken, want %v and the output", eof, got.String(), tc.want)
			}
		})
	}
}

// TestSettleGivesUpAHeldPipeOnceItsBacklogIsRead: once the pump has taken
// what was unread when the grace ended, a pipe a job still holds is given
// up at once. settle gave it one more grace, which a job that keeps
// writing (and so leaves bytes unread at every look) cost each command
// that started it: 100 ms. The pump starts after the grace, so bytes
// are unread then; settle must return well within a grace of that.
func TestSettleGivesUpAHeldPipeOnceItsBacklogIsRead(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("outputUnread cannot tell here")
	}
	// A long grace, so that the check below (half of it) holds on a
	// loaded machine too: the old settle waited a whole grace more.
	const grace = 1200 * time.Millisecond
	rd, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = wr.Close() }() // the job's copy: held throughout
	if _, err := wr.WriteString("output\n"); err != nil {
		t.Fatal(err)
	}
	var got lockedBuf
	p := newPump(rd, &got)
	started := make(chan time.Time, 1)
	late := time.AfterFunc(grace+50*time.Millisecond, func() {
		started <- time.Now()
		p.run()
	})
	eof := p.settle(grace, time.Hour)
	returned := time.Now()
	if late.Stop() {
		go p.run()
		p.stop()
		<-p.eof
		t.Fatal("settle returned before the pump ran: nothing was unread after the grace")
	}
	p.stop()
	<-p.eof
	if eof || got.String() != "output\n" {
		t.Fatalf("settle = %v with %q taken, want false and the output", eof, got.String())
	}
	if d := returned.Sub(<-started); d >= grace/2 {
		t.Errorf("settle returned %v after the pump started, with the backlog read at once: it waited another grace for a pipe a job holds", d)
	}
}

package wiretest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/olly-agent/olly/internal/llm"
)

// ReplayEnv names the environment variable that makes a test binary a
// replay server (ServeReplayIfAsked) instead of running its tests: its
// value is the reply's content type.
const ReplayEnv = "OLLY_WIRETEST_REPLAY"

// ServeReplayIfAsked makes the test binary the replay server of
// BenchRoundTripProc when ReplayEnv is set, and then exits; otherwise it
// returns. Call it first in TestMain.
//
// The server is net/http's, as the scripted fake server's is, and answers
// every request with the reply given on standard input (a step's lines,
// as BenchRoundTripProc passes it), one Flush per line as an Ollama server
// or the fake server streams; it prints its address and serves until its
// standard input closes.
func ServeReplayIfAsked() {
	ct := os.Getenv(ReplayEnv)
	if ct == "" {
		return
	}
	in := bufio.NewReader(os.Stdin)
	n := 0
	if _, err := fmt.Fscanf(in, "%d\n", &n); err != nil {
		fmt.Fprintln(os.Stderr, "replay: reply length:", err)
		os.Exit(2)
	}
	reply := make([]byte, n)
	if _, err := io.ReadFull(in, reply); err != nil {
		fmt.Fprintln(os.Stderr, "replay: reply:", err)
		os.Exit(2)
	}
	lines := bytes.SplitAfter(reply, []byte("\n"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "replay:", err)
		os.Exit(2)
	}
	fmt.Println(ln.Addr().String())
	go func() {
		_, _ = io.Copy(io.Discard, in)
		os.Exit(0)
	}()
	_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", ct)
		fl := w.(http.Flusher)
		for _, l := range lines {
			if len(l) > 0 {
				_, _ = w.Write(l)
				fl.Flush()
			}
		}
	}))
	os.Exit(0)
}

// BenchRoundTripProc is BenchRoundTrip against a server in another
// process (the test binary again, see ServeReplayIfAsked), so that the
// CPU reported is the client's alone: cpu-ns/op (user + system, the
// client process), ctxsw/op (voluntary context switches of its threads:
// each a thread going to sleep, mostly a hand-off between goroutines
// that found no other work) and allocations. The agent's way of sending
// is used: the conversation's encode cache.
func BenchRoundTripProc(b *testing.B, contentType string, reply []byte, newClient func(string) (llm.Provider, error), n int) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), ReplayEnv+"="+contentType)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = stdin.Close(); _ = cmd.Wait() })
	if _, err := fmt.Fprintf(stdin, "%d\n%s", len(reply), reply); err != nil {
		b.Fatal(err)
	}
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatal("replay server:", err)
	}
	c, err := newClient("http://" + strings.TrimSpace(addr))
	if err != nil {
		b.Fatal(err)
	}
	sw0 := ctxSwitches()
	BenchIterations(b, n, true, func(req *llm.ChatRequest) {
		chatOneCall(b, c, req)
	})
	b.ReportMetric(float64(ctxSwitches()-sw0)/float64(b.N), "ctxsw/op")
}

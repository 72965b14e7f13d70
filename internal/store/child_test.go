package store

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// childRoleEnv selects a role when the test binary is re-executed as a
// child process by a test; childArgsEnv carries its arguments.
const (
	childRoleEnv = "OLLY_STORE_TEST_CHILD"
	childArgsEnv = "OLLY_STORE_TEST_CHILD_ARGS"
)

func runChild(role string) int {
	args := strings.Split(os.Getenv(childArgsEnv), "\x1f")
	var err error
	switch role {
	case "append":
		err = childAppend(args)
	case "crash":
		err = childCrash(args)
	case "generate":
		err = childGenerate(args)
	default:
		err = fmt.Errorf("unknown child role %q", role)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	return 0
}

// childAppend: path session child n — appends n events numbered i.
func childAppend(args []string) error {
	ctx := context.Background()
	s, err := Open(ctx, args[0], Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	child, _ := strconv.Atoi(args[2])
	n, _ := strconv.Atoi(args[3])
	for i := range n {
		p, _ := json.Marshal(map[string]int{"child": child, "i": i})
		if err := s.Append(ctx, &EventRecord{Session: args[1], Type: "x", Payload: p}); err != nil {
			return err
		}
	}
	return nil
}

// childCrash: path session mode — appends from several goroutines forever
// (mode "sync"), printing each seq once its Append returned, or queues
// from one goroutine (mode "async"), printing each seq once its AppendAsync
// callback acknowledged it, until killed.
func childCrash(args []string) error {
	ctx := context.Background()
	s, err := Open(ctx, args[0], Options{})
	if err != nil {
		return err
	}
	out := bufio.NewWriter(os.Stdout)
	if len(args) > 2 && args[2] == "async" {
		return childCrashAsync(ctx, s, args[1], out)
	}
	var mu sync.Mutex
	errc := make(chan error, 4)
	for w := range 4 {
		go func() {
			for i := 0; ; i++ {
				p, _ := json.Marshal(map[string]any{"w": w, "i": i, "pad": strings.Repeat("x", 200)})
				rec := &EventRecord{Session: args[1], Type: "x", Payload: p, Text: fmt.Sprintf("worker %d event %d", w, i)}
				if err := s.Append(ctx, rec); err != nil {
					errc <- err
					return
				}
				mu.Lock()
				// One write per line: the parent reads whole lines only.
				fmt.Fprintf(out, "%d\n", rec.Seq)
				out.Flush()
				mu.Unlock()
			}
		}()
	}
	return <-errc
}

// childGenerate: path session — marks the session generating, prints
// "ready", and waits for stdin to close.
func childGenerate(args []string) error {
	ctx := context.Background()
	s, err := Open(ctx, args[0], Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.SetStatus(ctx, args[1], StatusGenerating); err != nil {
		return err
	}
	fmt.Println("ready")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	return nil
}

// childCrashAsync queues events of session with at most 64 unacknowledged
// at once, printing each seq from its callback (in order) until killed.
func childCrashAsync(ctx context.Context, s *Store, session string, out *bufio.Writer) error {
	slots := make(chan struct{}, 64)
	errc := make(chan error, 1)
	for i := 0; ; i++ {
		select {
		case slots <- struct{}{}:
		case err := <-errc:
			return err
		}
		p, _ := json.Marshal(map[string]any{"i": i, "pad": strings.Repeat("x", 200)})
		rec := &EventRecord{Session: session, Type: "x", Payload: p, Text: fmt.Sprintf("async event %d", i)}
		err := s.AppendAsync(ctx, rec, func(err error) {
			if err != nil {
				select {
				case errc <- err:
				default:
				}
				return
			}
			fmt.Fprintf(out, "%d\n", rec.Seq) // placed when queued; the store does not change it
			out.Flush()
			<-slots
		})
		if err != nil {
			return err
		}
	}
}

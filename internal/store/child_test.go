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

// childCrash: path session — appends from several goroutines forever,
// printing each seq once its Append returned, until killed.
func childCrash(args []string) error {
	ctx := context.Background()
	s, err := Open(ctx, args[0], Options{})
	if err != nil {
		return err
	}
	out := bufio.NewWriter(os.Stdout)
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

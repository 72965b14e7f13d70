package event

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestBusDeliversInOrderToEveryMatchingSubscriber(t *testing.T) {
	bus := NewBus()
	all := bus.Subscribe(nil)
	defer all.Close()
	onlyS2 := bus.Subscribe(func(ev Event) bool { return ev.Session == "s2" })
	defer onlyS2.Close()

	for i := 1; i <= 100; i++ {
		s := "s1"
		if i%2 == 0 {
			s = "s2"
		}
		bus.Publish(Event{Session: s, Seq: int64(i), Data: Status{}})
	}
	ctx := context.Background()
	for i := 1; i <= 100; i++ {
		ev, err := all.Next(ctx)
		if err != nil || ev.Seq != int64(i) {
			t.Fatalf("all: got seq %d err %v, want %d", ev.Seq, err, i)
		}
	}
	for i := 2; i <= 100; i += 2 {
		ev, err := onlyS2.Next(ctx)
		if err != nil || ev.Seq != int64(i) {
			t.Fatalf("s2: got seq %d err %v, want %d", ev.Seq, err, i)
		}
	}
	if _, ok := onlyS2.TryNext(); ok {
		t.Fatal("filtered subscription received an event for another session")
	}
}

func TestPublishNeverBlocksOnSlowSubscriber(t *testing.T) {
	bus := NewBus()
	slow := bus.Subscribe(nil) // never read until the end
	defer slow.Close()
	done := make(chan struct{})
	go func() {
		for i := 0; i < 10000; i++ {
			bus.Publish(Event{Seq: int64(i), Data: Status{}})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("publishing blocked on a subscriber that does not read")
	}
	n := 0
	for {
		if _, ok := slow.TryNext(); !ok {
			break
		}
		n++
	}
	if n != 10000 {
		t.Fatalf("slow subscriber got %d events, want 10000", n)
	}
}

func TestNextWaitsAndHonoursContextAndClose(t *testing.T) {
	bus := NewBus()
	sub := bus.Subscribe(nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := sub.Next(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Next on empty = %v, want deadline exceeded", err)
	}

	var wg sync.WaitGroup
	wg.Add(1)
	var got Event
	go func() {
		defer wg.Done()
		got, _ = sub.Next(context.Background())
	}()
	bus.Publish(Event{Seq: 42, Data: Status{}})
	wg.Wait()
	if got.Seq != 42 {
		t.Fatalf("waiting Next got seq %d, want 42", got.Seq)
	}

	bus.Publish(Event{Seq: 43, Data: Status{}})
	sub.Close()
	bus.Publish(Event{Seq: 44, Data: Status{}}) // after close: not delivered
	if ev, err := sub.Next(context.Background()); err != nil || ev.Seq != 43 {
		t.Fatalf("queued event after Close: seq %d err %v, want 43", ev.Seq, err)
	}
	if _, err := sub.Next(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Next after drain = %v, want ErrClosed", err)
	}
}

func TestConcurrentPublishAndSubscribe(t *testing.T) {
	bus := NewBus()
	var wg sync.WaitGroup
	for p := 0; p < 4; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				bus.Publish(Event{Data: Status{}})
			}
		}()
	}
	for s := 0; s < 4; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sub := bus.Subscribe(nil)
			for i := 0; i < 50; i++ {
				sub.TryNext()
			}
			sub.Close()
		}()
	}
	wg.Wait()
}

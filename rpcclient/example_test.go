package rpcclient_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/olly-agent/olly/event"
	"github.com/olly-agent/olly/rpcclient"
)

// Start olly in a workspace, send a prompt, approve what it asks, and
// print its answer when the turn ends. (Not run by `go test`: it needs an
// olly binary on PATH and a model server.)
func ExampleStart() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c, err := rpcclient.Start(ctx, rpcclient.Options{Args: []string{"--cwd", "/home/me/proj"}})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Prompt(ctx, rpcclient.PromptRequest{Message: "add a test for Parse"}); err != nil {
		log.Fatal(err)
	}
	for ev := range c.Events() {
		switch d := ev.Data.(type) {
		case event.ApprovalRequested:
			if _, err := c.Approve(ctx, d.ApprovalID, ""); err != nil {
				log.Fatal(err)
			}
		case event.FinalMessage:
			fmt.Println(d.Text)
		case event.TurnFinished:
			return
		}
	}
}

// Review what the agent changed and keep all of it.
func ExampleClient_ListChanges() {
	ctx := context.Background()
	c, err := rpcclient.Start(ctx, rpcclient.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ch, err := c.ListChanges(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range ch.Files {
		fmt.Printf("%s +%d -%d (%d hunks)\n", f.Path, f.Additions, f.Deletions, len(f.Hunks))
	}
	if _, err := c.Keep(ctx, rpcclient.ChangeRequest{All: true}); err != nil {
		log.Fatal(err)
	}
}

// Resume a session's events after a reconnect: the stored events after
// the last seq the client saw, page by page.
func ExampleClient_GetEvents() {
	ctx := context.Background()
	c, err := rpcclient.Start(ctx, rpcclient.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	var after int64
	for {
		page, err := c.GetEvents(ctx, rpcclient.EventsRequest{AfterSeq: after})
		if err != nil {
			log.Fatal(err)
		}
		for _, ev := range page.Events {
			fmt.Println(ev.Seq, ev.Type())
		}
		if !page.More {
			return
		}
		after = page.LastSeq
	}
}

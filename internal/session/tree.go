package session

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/olly-agent/olly/internal/event"
)

// PromptTree is a session's prompts arranged as its tree of branches: the
// children of a prompt are the prompts that followed it, one per branch.
type PromptTree struct {
	SessionID string        `json:"sessionId"`
	Roots     []*PromptNode `json:"roots"`
	// Leaf is the session's current leaf event. Current is the prompt whose
	// turn holds it: the next prompt follows Current's turn (0: the next
	// prompt starts a new root).
	Leaf    int64 `json:"leaf"`
	Current int64 `json:"current"`
}

// PromptNode is one prompt in a PromptTree.
type PromptNode struct {
	Seq  int64     `json:"seq"`
	Turn int       `json:"turn"`
	Text string    `json:"text"`
	At   time.Time `json:"at"`
	// OnPath marks the prompts of the current branch.
	OnPath   bool          `json:"onPath,omitempty"`
	Children []*PromptNode `json:"children,omitempty"`
}

// Tree returns the session's prompts as a tree, every branch included,
// with the current branch marked.
func (s *Service) Tree(ctx context.Context, id string) (*PromptTree, error) {
	sess, err := s.Open(ctx, id)
	if err != nil {
		return nil, err
	}
	recs, err := s.store.Events(ctx, id, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", id, err)
	}
	// prompt[seq] is the prompt an event belongs under: the nearest user
	// message at or above it. A parent always has a lower seq than its
	// children, so one pass in log order sees parents first.
	prompt := make(map[int64]int64, len(recs))
	nodes := map[int64]*PromptNode{}
	parentOf := map[int64]int64{}
	tree := &PromptTree{SessionID: id, Roots: []*PromptNode{}, Leaf: sess.LeafSeq}
	for _, r := range recs {
		if r.Type != string(event.TypeUserMessage) {
			prompt[r.Seq] = prompt[r.ParentSeq]
			continue
		}
		var um event.UserMessage
		if err := json.Unmarshal(r.Payload, &um); err != nil {
			return nil, fmt.Errorf("event %d of session %s: %w", r.Seq, id, err)
		}
		if um.Steering {
			// Part of the running turn, under that turn's prompt.
			prompt[r.Seq] = prompt[r.ParentSeq]
			continue
		}
		n := &PromptNode{Seq: r.Seq, Turn: r.Turn, Text: um.Text, At: r.At}
		nodes[r.Seq] = n
		up := prompt[r.ParentSeq]
		parentOf[r.Seq] = up
		if p := nodes[up]; p != nil {
			p.Children = append(p.Children, n)
		} else {
			tree.Roots = append(tree.Roots, n)
		}
		prompt[r.Seq] = r.Seq
	}
	tree.Current = prompt[sess.LeafSeq]
	for seq := tree.Current; seq != 0; seq = parentOf[seq] {
		nodes[seq].OnPath = true
	}
	return tree, nil
}

// Log returns every event of the session's log, every branch included, in
// seq order: the whole tree, as a JSONL export of it holds it.
func (s *Service) Log(ctx context.Context, id string) ([]event.Event, error) {
	if _, err := s.Open(ctx, id); err != nil {
		return nil, err
	}
	recs, err := s.store.Events(ctx, id, 0, 0)
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", id, err)
	}
	return decodeAll(recs)
}

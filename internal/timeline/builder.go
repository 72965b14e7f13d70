package timeline

import (
	"fmt"

	"github.com/olly-agent/olly/internal/event"
)

// liveOutputCap bounds the streamed output kept per running action: the
// frontend only needs the tail, and the final output replaces it.
const liveOutputCap = 64 << 10

// iterKey identifies one iteration of one turn.
type iterKey struct{ turn, iter int }

// Builder applies events one at a time. It is not safe for concurrent use.
type Builder struct {
	tl        *Timeline
	assistant map[int]*Item // by turn
	groups    map[string]*Group
	actions   map[string]*Action
	approvals map[string]*Approval
	files     map[string]*Block // by checkpoint id
	filesItem map[string]*Item  // the item holding each files block
	text      map[iterKey]*Block
	thinking  map[iterKey]*Block
	// confirmed marks blocks a durable event has set; blocks made only of
	// ephemeral deltas are dropped when their iteration or turn ends, so
	// the live view ends exactly as a replay of stored events does.
	confirmed map[*Block]bool
	// retrying is the item showing a retry line (retry.go), nil if none.
	retrying *Item
}

// NewBuilder returns a builder with an empty timeline.
func NewBuilder() *Builder {
	return &Builder{
		tl:        &Timeline{Items: []*Item{}},
		assistant: map[int]*Item{},
		groups:    map[string]*Group{},
		actions:   map[string]*Action{},
		approvals: map[string]*Approval{},
		files:     map[string]*Block{},
		filesItem: map[string]*Item{},
		text:      map[iterKey]*Block{},
		thinking:  map[iterKey]*Block{},
		confirmed: map[*Block]bool{},
	}
}

// Timeline returns the timeline built so far. It is the builder's own
// structure: valid until the next Apply.
func (b *Builder) Timeline() *Timeline { return b.tl }

// Apply adds one event to the timeline.
func (b *Builder) Apply(ev event.Event) {
	switch ev.Data.(type) {
	case event.ModelRetry, event.Status:
	default:
		b.clearRetry() // the next output ends a retry's wait (retry.go)
	}
	switch p := ev.Data.(type) {
	case event.TitleChanged:
		b.tl.Title = p.Title
	case event.UserMessage:
		b.applyUser(ev, p)
	case event.TurnStarted:
		it := b.item(ev.Turn)
		it.Mode, it.Model, it.Dispatch = p.Mode, p.Model, p.Dispatch
	case event.TextDelta:
		blk := b.textBlock(ev.Turn, p.Iteration)
		blk.Text += p.Text
	case event.ThinkingDelta:
		blk := b.thinkingBlock(ev.Turn, p.Iteration)
		blk.Text += p.Text
	case event.ThinkingBlock:
		blk := b.thinkingBlock(ev.Turn, p.Iteration)
		blk.Text, blk.DurationMs = p.Content, p.DurationMs
		b.confirmed[blk] = true
	case event.AssistantMessage:
		b.applyAssistant(ev.Turn, p)
	case event.FinalMessage:
		b.applyFinal(ev.Turn, p)
	case event.Compaction:
		b.appendBlock(ev.Turn, &Block{Kind: BlockNotice, Level: "compaction",
			Text: fmt.Sprintf("Conversation compacted (%d → %d tokens)", p.TokensBefore, p.TokensAfter)})
	case event.ProgressGroupStart:
		b.applyGroupStart(ev.Turn, p)
	case event.ToolAction:
		b.applyAction(ev.Turn, p)
	case event.ToolOutput:
		if a := b.actions[p.ActionID]; a != nil {
			a.LiveOutput = tail(a.LiveOutput+p.Text, liveOutputCap)
		}
	case event.ProgressGroupFinish:
		if g := b.groups[p.GroupID]; g != nil {
			g.Done = true
		}
	case event.SubagentThinking:
		if g := b.groups[p.GroupID]; g != nil {
			g.Thinking = append(g.Thinking, p.Content)
		}
	case event.ApprovalRequested:
		b.applyApprovalRequested(ev.Turn, p)
	case event.ApprovalResolved:
		if ap := b.approvals[p.ApprovalID]; ap != nil {
			ap.Decision, ap.AutoApproved, ap.ApprovedCommand, ap.DenyReason = p.Decision, p.AutoApproved, p.Command, p.Reason
			ap.OutsideSandbox = p.OutsideSandbox
		}
	case event.FilesChanged:
		b.applyFilesChanged(ev.Turn, p)
	case event.FileChangeResult:
		b.applyFileChangeResult(p)
	case event.KeepUndoResult:
		if p.Success {
			b.removeFiles(p.CheckpointID)
		}
	case event.TodoList:
		b.applyTodos(ev.Turn, p)
	case event.TokenUsage:
		u := p
		b.item(ev.Turn).TokenUsage = &u
	case event.Error:
		b.appendBlock(ev.Turn, &Block{Kind: BlockNotice, Level: "error", Text: p.Message})
	case event.Warning:
		b.appendBlock(ev.Turn, &Block{Kind: BlockNotice, Level: "warning", Text: p.Message})
	case event.MCPServerFailed:
		// Shown as a warning: the server's tools are missing, the turn goes on.
		b.appendBlock(ev.Turn, &Block{Kind: BlockNotice, Level: "warning", Text: p.Error})
	case event.HookRun:
		b.applyHookRun(ev.Turn, p) // hooks.go
	case event.Status:
		b.item(ev.Turn).Live = p.Text
	case event.ModelRetry:
		b.applyRetry(ev.Turn, p)
	case event.TurnFinished:
		b.applyTurnFinished(ev.Turn, p)
	}
	// ToolResult, ControlMessage and SessionSettings are conversation or
	// session state, not rendered.
}

// applyUser adds the prompt before its turn's assistant message: the agent
// emits turn_started (which opens that message) before the user message,
// and the prompt must still read first.
func (b *Builder) applyUser(ev event.Event, p event.UserMessage) {
	if p.Steering {
		// Read by the running turn between two iterations: it stands
		// where it was read, between the work before and after it.
		b.appendBlock(ev.Turn, &Block{Kind: BlockNotice, Level: LevelSteering, Text: p.Text})
		return
	}
	u := &Item{Kind: KindUser, Turn: ev.Turn, Seq: ev.Seq, Text: p.Text, Attachments: p.Attachments}
	if a := b.assistant[ev.Turn]; a != nil {
		for i, it := range b.tl.Items {
			if it == a {
				b.tl.Items = append(b.tl.Items[:i], append([]*Item{u}, b.tl.Items[i:]...)...)
				return
			}
		}
	}
	b.tl.Items = append(b.tl.Items, u)
}

// item returns the assistant item of turn, creating it.
func (b *Builder) item(turn int) *Item {
	if it := b.assistant[turn]; it != nil {
		return it
	}
	it := &Item{Kind: KindAssistant, Turn: turn, Status: "running"}
	b.assistant[turn] = it
	b.tl.Items = append(b.tl.Items, it)
	return it
}

func (b *Builder) appendBlock(turn int, blk *Block) {
	it := b.item(turn)
	it.Blocks = append(it.Blocks, blk)
}

func (b *Builder) textBlock(turn, iter int) *Block {
	k := iterKey{turn, iter}
	if blk := b.text[k]; blk != nil {
		return blk
	}
	blk := &Block{Kind: BlockText, Iteration: iter}
	b.text[k] = blk
	b.appendBlock(turn, blk)
	return blk
}

// thinkingBlock returns the iteration's thinking block, creating it before
// the iteration's text block if that already exists: thinking always shows
// first, whichever arrived first live.
func (b *Builder) thinkingBlock(turn, iter int) *Block {
	k := iterKey{turn, iter}
	if blk := b.thinking[k]; blk != nil {
		return blk
	}
	blk := &Block{Kind: BlockThinking, Iteration: iter}
	b.thinking[k] = blk
	it := b.item(turn)
	if txt := b.text[k]; txt != nil {
		it.Blocks = insertBefore(it.Blocks, txt, blk)
	} else {
		it.Blocks = append(it.Blocks, blk)
	}
	return blk
}

func (b *Builder) applyAssistant(turn int, p event.AssistantMessage) {
	it := b.item(turn)
	if p.Model != "" {
		it.Model = p.Model
	}
	k := iterKey{turn, p.Iteration}
	if p.Text == "" {
		if blk := b.text[k]; blk != nil {
			it.Blocks = without(it.Blocks, blk)
			delete(b.text, k)
		}
	} else {
		blk := b.textBlock(turn, p.Iteration)
		blk.Text = p.Text
		b.confirmed[blk] = true
	}
	// The iteration is over: streamed thinking that no durable block
	// confirmed is dropped, as a replay would never show it.
	b.dropUnconfirmed(it, b.thinking, k)
}

func (b *Builder) applyFinal(turn int, p event.FinalMessage) {
	it := b.item(turn)
	for _, blk := range it.Blocks {
		if blk.Kind == BlockFinal {
			blk.Text, blk.Plan = p.Text, p.Plan
			return
		}
	}
	it.Blocks = append(it.Blocks, &Block{Kind: BlockFinal, Text: p.Text, Plan: p.Plan})
}

func (b *Builder) applyGroupStart(turn int, p event.ProgressGroupStart) {
	g := &Group{ID: p.GroupID, Title: p.Title, Detail: p.Detail, Subagent: p.Subagent}
	b.groups[p.GroupID] = g
	if parent := b.groups[p.ParentGroupID]; p.ParentGroupID != "" && parent != nil {
		parent.Children = append(parent.Children, g)
		return
	}
	b.appendBlock(turn, &Block{Kind: BlockGroup, Group: g})
}

func (b *Builder) applyAction(turn int, p event.ToolAction) {
	a := b.actions[p.ActionID]
	if a == nil {
		a = &Action{}
		b.actions[p.ActionID] = a
		g := b.group(turn, p.GroupID, p.Tool)
		g.Actions = append(g.Actions, a)
	}
	a.ToolAction = p
	if p.Status == event.ActionSuccess || p.Status == event.ActionError {
		a.LiveOutput = ""
	}
}

// group returns the group with id, or creates one for an action that named
// no known group, so nothing the agent reports is lost from view.
func (b *Builder) group(turn int, id, tool string) *Group {
	if g := b.groups[id]; g != nil {
		return g
	}
	g := &Group{ID: id, Title: tool}
	b.groups[id] = g
	b.appendBlock(turn, &Block{Kind: BlockGroup, Group: g})
	return g
}

func (b *Builder) applyApprovalRequested(turn int, p event.ApprovalRequested) {
	ap := &Approval{ApprovalRequested: p}
	b.approvals[p.ApprovalID] = ap
	a := b.actions[p.ActionID]
	if a == nil {
		// An approval with no action (a directory grant asked before any
		// tool ran) gets an action of its own.
		id := p.ActionID
		if id == "" {
			id = "approval:" + p.ApprovalID
		}
		a = &Action{ToolAction: event.ToolAction{ActionID: id, Tool: "approval", Status: event.ActionPending, Text: p.Reason}}
		b.actions[id] = a
		g := b.group(turn, "approvals:"+fmt.Sprint(turn), "Approval")
		g.Actions = append(g.Actions, a)
	}
	a.Approval = ap
}

func (b *Builder) applyFilesChanged(turn int, p event.FilesChanged) {
	blk := b.files[p.CheckpointID]
	if blk == nil {
		blk = &Block{Kind: BlockFiles, Files: &Files{CheckpointID: p.CheckpointID}}
		b.files[p.CheckpointID] = blk
		b.filesItem[p.CheckpointID] = b.item(turn)
		b.appendBlock(turn, blk)
	}
	blk.Files.Status = p.Status
	// Merge by path: a re-edited file updates its entry (seed pitfalls #14, #22).
	for _, f := range p.Files {
		replaced := false
		for i := range blk.Files.Files {
			if blk.Files.Files[i].Path == f.Path {
				blk.Files.Files[i] = f
				replaced = true
				break
			}
		}
		if !replaced {
			blk.Files.Files = append(blk.Files.Files, f)
		}
	}
}

func (b *Builder) applyFileChangeResult(p event.FileChangeResult) {
	blk := b.files[p.CheckpointID]
	if blk == nil || !p.Success || !(p.Resolved || p.Hunk == 0) {
		return
	}
	kept := blk.Files.Files[:0:0]
	for _, f := range blk.Files.Files {
		if f.Path != p.FilePath {
			kept = append(kept, f)
		}
	}
	blk.Files.Files = kept
	if len(kept) == 0 {
		b.removeFiles(p.CheckpointID)
	}
}

// removeFiles removes the checkpoint's widget.
func (b *Builder) removeFiles(checkpointID string) {
	blk, it := b.files[checkpointID], b.filesItem[checkpointID]
	if blk == nil {
		return
	}
	it.Blocks = without(it.Blocks, blk)
	delete(b.files, checkpointID)
	delete(b.filesItem, checkpointID)
}

func (b *Builder) applyTurnFinished(turn int, p event.TurnFinished) {
	it := b.item(turn)
	it.Status, it.Error, it.Live = p.Status, p.Error, ""
	for k := range b.text {
		if k.turn == turn {
			b.dropUnconfirmed(it, b.text, k)
		}
	}
	for k := range b.thinking {
		if k.turn == turn {
			b.dropUnconfirmed(it, b.thinking, k)
		}
	}
	for _, blk := range it.Blocks {
		if blk.Kind == BlockGroup {
			finishGroup(blk.Group)
		}
	}
}

// finishGroup marks a group and its children done when the turn ends (a
// canceled turn leaves groups open; they are over all the same).
func finishGroup(g *Group) {
	g.Done = true
	for _, c := range g.Children {
		finishGroup(c)
	}
}

func (b *Builder) dropUnconfirmed(it *Item, m map[iterKey]*Block, k iterKey) {
	blk := m[k]
	if blk == nil || b.confirmed[blk] {
		return
	}
	it.Blocks = without(it.Blocks, blk)
	delete(m, k)
}

func without(blocks []*Block, drop *Block) []*Block {
	out := blocks[:0:0]
	for _, blk := range blocks {
		if blk != drop {
			out = append(out, blk)
		}
	}
	return out
}

func insertBefore(blocks []*Block, at, blk *Block) []*Block {
	out := make([]*Block, 0, len(blocks)+1)
	for _, x := range blocks {
		if x == at {
			out = append(out, blk)
		}
		out = append(out, x)
	}
	return out
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

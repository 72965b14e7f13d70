// Package session is olly's session service: the one place events are
// published (Emit), the place turns are run from (Prompt), and the builder
// of the conversation the model sees from the session's log
// (Conversation). Every frontend — print, RPC, web, TUI — drives sessions
// through a *Service and renders the events it publishes.
//
// # The log is the only source
//
// Emit appends a durable event to the store (which assigns Seq and
// ParentSeq) and only then publishes it on the bus; an ephemeral event
// (streaming delta, spinner) is only published. So a published durable
// event is always already stored, and a frontend that opens a session later
// sees exactly what a live frontend saw (seed critical rule #1). Emits of
// one session are serialized, so the bus delivers them in Seq order.
//
// The conversation the model sees is built from the same log: the
// Conversation type applies user_message, assistant_message, tool_result,
// control_message and compaction events and renders them in the native or
// the text tool-calling format. The agent loop builds every request from the
// turn's Conversation, which is fed by the events the turn emits, so a
// resumed session's history is identical to the live one by construction.
//
// # API
//
// A composition root and a frontend use it like this:
//
//	svc, err := session.New(session.Deps{Store: st, Runner: agent})
//	sess, err := svc.Create(ctx, session.CreateOptions{Workspace: "/home/me/proj", Model: "qwen3:8b"})
//	sub, err := svc.Subscribe(ctx, sess.ID, 0) // stored events after seq 0, then live ones
//	defer sub.Close()
//	go render(sub)                              // sub.Next(ctx) until the turn_finished it waits for
//	res, err := svc.Prompt(ctx, sess.ID, session.PromptInput{Text: "add a test for Parse"})
//	svc.Abort(sess.ID)                          // from another goroutine: cancels the running turn
//
// The methods:
//
//   - New(Deps) builds the service. Deps.Store is the SQLite store (any
//     value with its methods: see Store); Deps.Runner runs turns (the agent,
//     *agent.Agent); Deps.Bus may be shared with other services.
//   - Create makes a session for a workspace directory; Open reads one.
//   - Prompt runs one turn to its end and returns its TurnResult. Its events
//     go to the bus as they happen. One turn runs at a time per session: a
//     second Prompt while one runs fails with ErrBusy. The session's stored
//     status is generating while the turn
//     runs, then idle, or error when the turn failed. A prompt the runner
//     refuses before starting (an @path outside the workspace) returns the
//     error and emits nothing.
//   - Submit accepts a prompt without running it (an RPC or web frontend
//     answers at once): an idle session admits it and the caller runs it
//     with Submission.Run; while a prompt runs, a steering message is
//     queued for the running turn, which the agent reads at its next
//     iteration boundary (Turn.TakeSteering), and a follow-up is queued
//     to run as the next turn (queue.go).
//   - A prompt may start with a slash command (slash.go; Commands lists
//     them): /plan, /review, /security-review, /deep-explore, /explore and
//     /chat run the rest of the prompt in that mode; /compact compacts the
//     conversation now (Deps.Compactor, or the Runner when it implements
//     Compactor); /new starts a session in the same workspace and reports
//     it in TurnResult.SessionID. An unknown /word is an error.
//   - ImplementPlan starts an agent-mode turn whose task is a plan-mode
//     turn's plan (the final_message marked plan).
//   - RunCommand runs a command the person typed (RPC bash) in the
//     session's shell as a turn of its own, by the runner
//     (CommandRunner), queued and recorded like any turn; the outcome is
//     TurnResult.Shell.
//   - Abort cancels the running turn: streaming stops, a running command's
//     process group is killed through its context, and the turn ends with
//     turn_finished{canceled}. Prompt still returns normally.
//   - Subscribe replays the stored events with Seq > afterSeq, then delivers
//     live ones, with no gap and no duplicate. Pass the last Seq a client
//     saw to resume it; ephemeral events are live only.
//   - History returns the decoded events of the session's current branch
//     (for timeline.Build); Conversation rebuilds the model's conversation;
//     Log returns the whole log, every branch.
//   - Find (an id or a unique prefix), Latest, Recent and Resume find
//     sessions for frontends (print mode's --continue and --resume).
//   - Branch continues a session from before an earlier prompt; Fork copies
//     a branch into a new session; Tree shows the branches as prompts.
//     Rename records a title_changed event; Delete refuses sessions that
//     are generating. Prompts returns the prompt history Prompt records.
//   - Search searches by words and meaning (NewEmbedder, with a catch-up of
//     pending embeddings); StartIndexing embeds in the background.
//   - Emit is the only way to publish; Runner implementations use the
//     Turn's Emit, which is bound to the session and the turn and feeds the
//     turn's Conversation.
//
// The first prompt of an untitled session gives it a title (its first line,
// shortened; title_changed right after the user_message). With
// Deps.Titles (agent.sessionTitleGeneration currentModel or selectModel) a
// model then writes a better one in the background, bounded by
// Deps.TitleTimeout (15 s), never blocking the turn; it replaces the
// first-message title (another title_changed) unless the person renamed
// the session meanwhile, and a failure keeps the first title and is
// logged. Close cancels the titles being written and waits for them: call
// it before closing the store.
//
// The runner's session memory (TurnResult.Memory, JSON) is stored on the
// session row (session_memory) after each turn and handed to the next turn
// as Turn.Memory, in this process or after a restart.
package session

// Package agent is olly's agent loop, for every mode: it answers one prompt
// by streaming the model's response, running the tool calls in it, and
// continuing until the model says [TASK_COMPLETE] and the gates agree, or
// agent.maxIterations is reached. *Agent implements session.Runner; the
// session service hands it a turn, and every event goes out through the
// turn's Emit, which stores it and feeds the conversation the next request
// is built from.
//
// The loop (agent.go) only orchestrates; each concern has its own file,
// after the seed's sub-handlers, and the steps that keep state keep it in
// a type of their own, which reaches the rest of the run only through what
// it is given (streamer, toolRunner, gates, requestBuilder, contextState;
// docs/agent.md, "The run's state"):
//
//   - stream.go, throttle.go, strip.go: the stream processor — the request
//     is sent, reasoning and native tool calls accumulate, text is shown
//     through toolcall.Filter (call markup and [TASK_COMPLETE] never show)
//     in 32 ms throttled deltas behind a first-chunk gate, and done_reason
//     length marks a cut-off response.
//   - toolrunner.go, dedupe.go: a response's calls run as one batch in a
//     progress group through tools.Registry.Execute; duplicates are dropped,
//     8 calls draw a note, 15 is the cap.
//   - control.go: the control plane — the <agent_control> continuation
//     packet, the anti-repetition line, the task reminder.
//   - request.go, compact.go, fit.go, compact_state.go, usage.go: the
//     context — each iteration's request built from the conversation and
//     fitted to the window (requestBuilder), the automatic compaction
//     before a request near the window or after an overflow, session
//     memory and token estimates (contextState).
//   - gates.go: what may end the loop — failed calls, the write check, the
//     diagnostics check.
//   - summary.go: the final message.
//   - context.go: @path and @path:L10-L50 attachments.
//   - prompt.go, prompts/*.md: the system prompt — the orchestrator's
//     (system.md) and the read-only modes' and sub-agents' (mode.md).
//   - modes.go, modes_git.go: the mode table (agent, explore, plan,
//     review, security-review, deep-explore, chat): tools, iteration cap
//     and gates, and the run-time refusal of tools a mode lacks.
//   - dispatch.go: the dispatcher, which classifies an agent-mode prompt
//     and may route it to deep-explore.
//   - subagent.go, subagent_emit.go: run_subagent's isolated sub-agents.
//   - projectctx.go, scratch.go: project context for read-only modes and
//     sub-agents; the orchestrator's scratch directory.
//   - command.go: a command the person typed (RPC bash) as a turn of its
//     own through run_terminal_command (session.CommandRunner).
//
// docs/agent.md describes the loop, its history protocol and its limits.
package agent

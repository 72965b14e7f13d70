// Drives olly --mode rpc with pi's own RpcClient (from the npm package
// @mariozechner/pi-coding-agent) through the commands pi's clients send.
// rpcclient's TestPiRpcClient runs it: the model is its scripted fake
// server. It prints one JSON object with what it saw; a command that
// fails throws (RpcClient turns success:false into an error).
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = process.env.PI_PACKAGE_DIR;
const { RpcClient } = await import(pathToFileURL(path.join(pkg, "dist/modes/rpc/rpc-client.js")).href);

const client = new RpcClient({ cliPath: path.join(here, "olly-shim.mjs"), cwd: process.env.PI_TEST_OLLY_CWD });
const out = { events: {} };
client.onEvent((e) => {
	out.events[e.type] = (out.events[e.type] || 0) + 1;
	if (process.env.PI_TEST_DEBUG) process.stderr.write(JSON.stringify(e).slice(0, 300) + "\n");
});
// Commands the client has no method for go out as raw frames, as pi's
// docs say to send them; send() still pairs the response by id.
const raw = async (cmd) => {
	const r = await client.send(cmd);
	if (!r.success) throw new Error(`${cmd.type}: ${r.error}`);
	return r.data;
};

await client.start();
try {
	out.stateBefore = await client.getState();
	await client.promptAndWait("first prompt");
	await client.promptAndWait("second prompt");

	const forkable = await client.getForkMessages();
	out.forkable = forkable.map((m) => m.text);
	out.fork = await client.fork(forkable[1].entryId);
	out.afterFork = (await client.getForkMessages()).map((m) => m.text);

	await client.setSteeringMode("one-at-a-time");
	await client.setFollowUpMode("all");
	await raw({ type: "set_interrupt_mode", mode: "immediate" });
	await client.setThinkingLevel("high");
	out.stateModes = await client.getState();
	// Auto-retry: off and on again; abort_retry with no retry waiting is a no-op.
	await client.setAutoRetry(false);
	await client.setAutoRetry(true);
	await client.abortRetry();
	out.autoRetryCommands = true;

	out.cycledModel = await client.cycleModel();
	out.thinking = [await client.cycleThinkingLevel(), await client.cycleThinkingLevel()];

	const idle = client.waitForIdle(60000);
	await raw({ type: "abort_and_prompt", message: "third prompt" });
	await idle;
	out.stateAfter = await client.getState();
	out.lastText = await client.getLastAssistantText();
} finally {
	await client.stop();
}
console.log(JSON.stringify(out));

// pi's RpcClient starts `node <cliPath> --mode rpc …`: this stands in for
// pi's cli.js and runs the olly binary (PI_TEST_OLLY_BIN) with PI_TEST_OLLY_ARGS (a JSON
// array) before pi's arguments, on the same stdio.
import { spawn } from "node:child_process";

const args = [...JSON.parse(process.env.PI_TEST_OLLY_ARGS || "[]"), ...process.argv.slice(2)];
const child = spawn(process.env.PI_TEST_OLLY_BIN, args, { stdio: "inherit" });
for (const sig of ["SIGTERM", "SIGINT"]) {
	process.on(sig, () => child.kill(sig));
}
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

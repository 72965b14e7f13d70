import { test } from "node:test";
import * as assert from "node:assert/strict";
import { findOlly } from "../src/binary";

const files = (...paths: string[]) => (f: string) => paths.includes(f);

test("the setting wins over PATH", () => {
  const r = findOlly({ setting: "/opt/olly", pathVar: "/usr/bin", platform: "linux", isExecutable: files("/opt/olly", "/usr/bin/olly") });
  assert.deepEqual(r, { ok: true, path: "/opt/olly" });
});

test("a setting naming nothing is an error, not a fallback to PATH", () => {
  const r = findOlly({ setting: "/nope/olly", pathVar: "/usr/bin", platform: "linux", isExecutable: files("/usr/bin/olly") });
  assert.equal(r.ok, false);
  assert.match((r as { message: string }).message, /olly\.path is set to "\/nope\/olly"/);
});

test("the first olly on PATH", () => {
  const r = findOlly({ setting: "", pathVar: "/a::/b:/c", platform: "linux", isExecutable: files("/b/olly", "/c/olly") });
  assert.deepEqual(r, { ok: true, path: "/b/olly" });
});

test("missing everywhere says how to fix it", () => {
  const r = findOlly({ setting: " ", pathVar: "/a:/b", platform: "linux", isExecutable: files() });
  assert.equal(r.ok, false);
  assert.match((r as { message: string }).message, /not found on PATH.*olly\.path/);
});

test("windows looks for olly.exe on a ;-separated PATH", () => {
  const r = findOlly({ setting: "", pathVar: "C:\\x;C:\\y", platform: "win32", isExecutable: (f) => f.endsWith("olly.exe") && f.includes("y") });
  assert.equal(r.ok, true);
});

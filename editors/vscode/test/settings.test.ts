import { test } from "node:test";
import * as assert from "node:assert/strict";
import { lspArgs, serveUrlUsable, setFlags, statusText } from "../src/settings";
import { sidebarHtml } from "../src/sidebar";

const none = { baseUrl: "", completionModel: "", chatModel: "", agentModel: "", enableAutoComplete: true };

test("empty settings pass nothing: olly's own settings apply", () => {
  assert.deepEqual(setFlags(none), []);
  assert.deepEqual(lspArgs(none, undefined), ["lsp"]);
});

test("settings become --set flags for olly's keys", () => {
  const s = { baseUrl: " http://gpu:11434 ", completionModel: "qwen2.5-coder:1.5b", chatModel: "", agentModel: "qwen3:8b", enableAutoComplete: false };
  assert.deepEqual(lspArgs(s, "/w"), [
    "lsp",
    "--set", "baseUrl=http://gpu:11434",
    "--set", "completionMode.model=qwen2.5-coder:1.5b",
    "--set", "agentMode.model=qwen3:8b",
    "--set", "enableAutoComplete=false",
    "--cwd", "/w",
  ]);
});

test("status bar text", () => {
  assert.equal(statusText("qwen2.5-coder:1.5b", ""), "$(sparkle) olly: qwen2.5-coder:1.5b");
  assert.equal(statusText("", "no model"), "$(warning) olly");
});

test("the sidebar shows only a local olly serve", () => {
  assert.equal(serveUrlUsable("http://127.0.0.1:7777/"), true);
  assert.equal(serveUrlUsable("http://localhost:7777/"), true);
  assert.equal(serveUrlUsable("https://example.com/"), false);
  assert.equal(serveUrlUsable("javascript:alert(1)"), false);
  assert.equal(serveUrlUsable("not a url"), false);
});

test("sidebar page: iframe with escaped url, or the terminal link", () => {
  const withUrl = sidebarHtml('http://127.0.0.1:7777/?a="b"');
  assert.match(withUrl, /<iframe src="http:\/\/127\.0\.0\.1:7777\/\?a=&quot;b&quot;"/);
  assert.match(withUrl, /frame-src http:\/\/127\.0\.0\.1:7777;/);
  assert.match(sidebarHtml(""), /command:olly\.openTerminal/);
});

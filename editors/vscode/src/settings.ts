// The extension's settings, passed through to olly as --set flags, so that
// olly's own settings (olly config list) stay the one place they are
// read and checked. Kept free of the vscode module for node's tests.

/** The olly.* settings the extension passes on. Empty strings are not passed. */
export interface OllySettings {
  baseUrl: string;
  completionModel: string;
  chatModel: string;
  agentModel: string;
  enableAutoComplete: boolean;
}

/** setFlags returns the --set flags for olly's keys, in a fixed order. */
export function setFlags(s: OllySettings): string[] {
  const pairs: Array<[string, string]> = [
    ["baseUrl", s.baseUrl],
    ["completionMode.model", s.completionModel],
    ["chatMode.model", s.chatModel],
    ["agentMode.model", s.agentModel],
  ];
  const out: string[] = [];
  for (const [key, value] of pairs) {
    const v = value.trim();
    if (v !== "") {
      out.push("--set", `${key}=${v}`);
    }
  }
  if (!s.enableAutoComplete) {
    out.push("--set", "enableAutoComplete=false");
  }
  return out;
}

/** lspArgs are the arguments that start the language server for a workspace folder. */
export function lspArgs(s: OllySettings, cwd: string | undefined): string[] {
  const args = ["lsp", ...setFlags(s)];
  if (cwd) {
    args.push("--cwd", cwd);
  }
  return args;
}

/** statusText is the status bar's text for the model the server reports. */
export function statusText(model: string, message: string): string {
  if (model === "") {
    return message === "" ? "$(circle-slash) olly" : "$(warning) olly";
  }
  return `$(sparkle) olly: ${model}`;
}

/** serveUrlUsable says whether a sidebar address may be shown in the webview: http(s) on this machine only. */
export function serveUrlUsable(u: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(u);
  } catch {
    return false;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return false;
  }
  return parsed.hostname === "localhost" || parsed.hostname === "127.0.0.1" || parsed.hostname === "[::1]";
}

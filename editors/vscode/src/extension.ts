// The olly extension: starts `olly lsp` for inline completions and
// edit-with-instructions, shows the model in the status bar, and gives the
// agent a sidebar. All model work happens in olly; this file only wires
// VS Code to it.
import * as vscode from "vscode";
import {
  ClientCapabilities,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  StaticFeature,
  TransportKind,
} from "vscode-languageclient/node";
import { findOlly, isExecutable } from "./binary";
import { OllySettings, lspArgs, serveUrlUsable, setFlags, statusText } from "./settings";
import { sidebarHtml } from "./sidebar";

let client: LanguageClient | undefined;
let status: vscode.StatusBarItem;

function readSettings(): OllySettings {
  const c = vscode.workspace.getConfiguration("olly");
  return {
    baseUrl: c.get<string>("baseUrl", ""),
    completionModel: c.get<string>("completionModel", ""),
    chatModel: c.get<string>("chatModel", ""),
    agentModel: c.get<string>("agentModel", ""),
    enableAutoComplete: c.get<boolean>("enableAutoComplete", true),
  };
}

function binary(): string | undefined {
  const found = findOlly({
    setting: vscode.workspace.getConfiguration("olly").get<string>("path", ""),
    pathVar: process.env.PATH ?? "",
    platform: process.platform,
    isExecutable,
  });
  if (!found.ok) {
    status.text = "$(error) olly";
    status.tooltip = found.message;
    void vscode.window.showErrorMessage(found.message, "Open settings").then((pick) => {
      if (pick) {
        void vscode.commands.executeCommand("workbench.action.openSettings", "olly.path");
      }
    });
    return undefined;
  }
  return found.path;
}

function workspaceDir(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

async function start(ctx: vscode.ExtensionContext): Promise<void> {
  const cmd = binary();
  if (!cmd) {
    return;
  }
  const settings = readSettings();
  const serverOptions: ServerOptions = {
    command: cmd,
    args: lspArgs(settings, workspaceDir()),
    transport: TransportKind.stdio,
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file" }, { scheme: "untitled" }],
    middleware: {
      // The code action "Edit with olly…" carries no instruction: ask for
      // one here, then let the request go on to olly.
      executeCommand: async (command, args, next) => {
        if (command === "olly.edit" && args.length > 0 && !args[0].instruction) {
          const instruction = await vscode.window.showInputBox({ prompt: "Edit with olly: what should change?" });
          if (!instruction) {
            return undefined;
          }
          args = [{ ...args[0], instruction }];
        }
        return next(command, args);
      },
    },
  };
  client = new LanguageClient("olly", "olly", serverOptions, clientOptions);
  client.registerFeature(inlineCapability);
  client.onNotification("olly/status", (p: { model?: string; message?: string }) => {
    status.text = statusText(p.model ?? "", p.message ?? "");
    status.tooltip = p.message || (p.model ? `Inline completions from ${p.model}` : "olly");
  });
  await client.start();
  ctx.subscriptions.push(
    vscode.languages.registerInlineCompletionItemProvider({ pattern: "**" }, inlineProvider()),
  );
}

// inlineCapability tells olly that this client shows inline completions
// (the provider below), so olly offers no completion items as well: both
// would ask the model on every keystroke.
const inlineCapability: StaticFeature = {
  fillClientCapabilities(caps: ClientCapabilities) {
    caps.textDocument = caps.textDocument ?? {};
    (caps.textDocument as Record<string, unknown>).inlineCompletion = { dynamicRegistration: false };
  },
  initialize() {},
  getState() {
    return { kind: "static" };
  },
  clear() {},
};

// inlineProvider asks olly for textDocument/inlineCompletion (LSP 3.18).
// VS Code's cancellation token becomes $/cancelRequest, which cancels the
// model call in olly.
function inlineProvider(): vscode.InlineCompletionItemProvider {
  return {
    async provideInlineCompletionItems(doc, position, context, token) {
      if (!client || !client.isRunning()) {
        return undefined;
      }
      const result = await client.sendRequest<{ items: Array<{ insertText: string; range?: { start: { line: number; character: number }; end: { line: number; character: number } } }> } | null>(
        "textDocument/inlineCompletion",
        {
          textDocument: { uri: doc.uri.toString() },
          position: { line: position.line, character: position.character },
          context: { triggerKind: context.triggerKind === vscode.InlineCompletionTriggerKind.Invoke ? 1 : 2 },
        },
        token,
      ).catch(() => null);
      if (!result || token.isCancellationRequested) {
        return undefined;
      }
      return result.items.map((it) => {
        const r = it.range
          ? new vscode.Range(it.range.start.line, it.range.start.character, it.range.end.line, it.range.end.character)
          : new vscode.Range(position, position);
        return new vscode.InlineCompletionItem(it.insertText, r);
      });
    },
  };
}

async function editSelection(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.selection.isEmpty) {
    void vscode.window.showInformationMessage("olly: select the code to edit first.");
    return;
  }
  if (!client || !client.isRunning()) {
    void vscode.window.showErrorMessage("olly: the language server is not running (see the olly output).");
    return;
  }
  const instruction = await vscode.window.showInputBox({ prompt: "Edit with olly: what should change?" });
  if (!instruction) {
    return;
  }
  const sel = editor.selection;
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: "olly is editing…", cancellable: false },
    () =>
      client!.sendRequest("workspace/executeCommand", {
        command: "olly.edit",
        arguments: [
          {
            uri: editor.document.uri.toString(),
            range: {
              start: { line: sel.start.line, character: sel.start.character },
              end: { line: sel.end.line, character: sel.end.character },
            },
            instruction,
          },
        ],
      }),
  ).then(undefined, (err: Error) => vscode.window.showErrorMessage(`olly: ${err.message}`));
}

function terminal(title: string, args: string[]): void {
  const cmd = binary();
  if (!cmd) {
    return;
  }
  const t = vscode.window.createTerminal({ name: title, shellPath: cmd, shellArgs: args, cwd: workspaceDir() });
  t.show();
}

// sidebar shows `olly serve`'s page when olly.serveUrl names one, and
// otherwise a button that opens olly in a terminal.
function sidebar(): vscode.WebviewViewProvider {
  return {
    resolveWebviewView(view) {
      const url = vscode.workspace.getConfiguration("olly").get<string>("serveUrl", "");
      view.webview.options = { enableScripts: true, enableCommandUris: true };
      view.webview.html = sidebarHtml(serveUrlUsable(url) ? url : "");
    },
  };
}

export async function activate(ctx: vscode.ExtensionContext): Promise<void> {
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  status.text = "$(sync~spin) olly";
  status.command = "olly.openTerminal";
  status.show();
  ctx.subscriptions.push(
    status,
    vscode.commands.registerCommand("olly.editSelection", editSelection),
    vscode.commands.registerCommand("olly.reviewChanges", () => terminal("olly changes", ["changes", "diff", ...setFlags(readSettings())])),
    vscode.commands.registerCommand("olly.openTerminal", () => terminal("olly", setFlags(readSettings()))),
    vscode.commands.registerCommand("olly.restart", async () => {
      await client?.stop();
      await start(ctx);
    }),
    vscode.window.registerWebviewViewProvider("olly.chat", sidebar()),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration("olly")) {
        await client?.stop();
        await start(ctx);
      }
    }),
  );
  await start(ctx);
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}

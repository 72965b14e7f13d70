// Finding the olly binary: the olly.path setting, then PATH. Kept free of
// the vscode module so that node's test runner can load it.
import * as fs from "node:fs";
import * as path from "node:path";

/** What the search looks at; tests give their own. */
export interface FindEnv {
  /** The olly.path setting ("" when unset). */
  setting: string;
  /** The PATH variable. */
  pathVar: string;
  /** "win32" or anything else. */
  platform: string;
  /** Whether a file exists and may be run. */
  isExecutable(file: string): boolean;
}

/** The outcome: the binary, or a message saying what to do. */
export type FindResult = { ok: true; path: string } | { ok: false; message: string };

/** findOlly looks for the binary: the setting, when set, must name it; else the first olly on PATH. */
export function findOlly(env: FindEnv): FindResult {
  const setting = env.setting.trim();
  if (setting !== "") {
    if (env.isExecutable(setting)) {
      return { ok: true, path: setting };
    }
    return {
      ok: false,
      message: `olly.path is set to "${setting}", but there is no program there. Fix the setting, or clear it to use olly from PATH.`,
    };
  }
  const names = env.platform === "win32" ? ["olly.exe", "olly"] : ["olly"];
  const sep = env.platform === "win32" ? ";" : ":";
  for (const dir of env.pathVar.split(sep)) {
    if (dir === "") {
      continue;
    }
    for (const name of names) {
      const candidate = path.join(dir, name);
      if (env.isExecutable(candidate)) {
        return { ok: true, path: candidate };
      }
    }
  }
  return {
    ok: false,
    message:
      "olly was not found on PATH. Build it (go build -o olly ./cmd/olly in the olly repository) and put it on PATH, or set olly.path to the binary.",
  };
}

/** isExecutable is the real check: a regular file with an execute bit (on Windows: a file). */
export function isExecutable(file: string): boolean {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) {
      return false;
    }
    if (process.platform === "win32") {
      return true;
    }
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

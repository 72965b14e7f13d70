// settings.js: the settings page. Everything is read and written with
// RPC mode's commands (get_settings, set_setting, test_connection,
// list_models, set_model_enabled, set_model_context): the server checks
// every value as `olly config set` does and refuses user-only keys in the
// project file. The token is write-only: the server never sends it, and
// the page never shows what was typed once it is saved.

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

// The tabs, and which keys each shows (the rest are under "All").
const tabs = [
  ["connection", "Connection"],
  ["models", "Models"],
  ["agent", "Agent"],
  ["files", "Sensitive files"],
  ["approvals", "Approvals"],
  ["all", "All settings"],
];
const connectionKeys = ["baseUrl", "provider", "apiKey", "timeouts.connect", "timeouts.response", "timeouts.idle"];
const modelKeys = ["agentMode.model", "chatMode.model", "planMode.model", "agent.explorerModel", "embedding.model", "contextWindow", "agent.maxContextWindow"];
const rulesKey = "agent.sensitiveFilePatterns";
const inTab = {
  agent: (k) => (k.startsWith("agent.") || k.startsWith("agentMode.")) && !modelKeys.includes(k) && k !== rulesKey,
  approvals: (k) => k.startsWith("approval.") || k.startsWith("sandbox.") || k.startsWith("shell."),
  all: (k) => k !== "apiKey" && k !== rulesKey,
};

export class Settings {
  constructor(root, client, toast) {
    this.root = root;
    this.client = client;
    this.toast = toast;
    this.tab = "connection";
    root.addEventListener("click", (e) => this.click(e));
    root.addEventListener("change", (e) => this.change(e));
  }

  async show(tab) {
    if (tab) this.tab = tab;
    this.root.hidden = false;
    await this.refresh();
  }

  hide() {
    this.root.hidden = true;
    this.root.replaceChildren();
  }

  // refresh draws the current tab afresh. Only the latest call draws: a
  // slower earlier one (after a save, before a tab was clicked) must not
  // bring its tab back.
  async refresh() {
    const gen = this.gen = (this.gen || 0) + 1;
    const tab = this.tab;
    let data;
    try {
      data = await this.client.call("get_settings");
    } catch (err) { this.toast(err.message); return; }
    if (gen !== this.gen) return;
    this.data = data;
    this.byKey = new Map(this.data.settings.map((s) => [s.key, s]));
    const head = el("div", "rhead");
    head.append(el("strong", "", "Settings"));
    for (const [id, label] of tabs) {
      const b = el("button", "tab" + (id === tab ? " current" : ""), label);
      b.dataset.tab = id;
      head.append(b);
    }
    const close = el("button", "link", "close");
    close.dataset.close = "1";
    head.append(close);
    const body = el("div", "sbody");
    body.dataset.body = tab;
    for (const w of this.data.warnings || []) body.append(el("div", "notice warning", w));
    await this.fill(body, tab);
    if (gen !== this.gen) return;
    this.root.replaceChildren(head, body);
    // How many times the page was drawn (tests wait for a new one).
    this.root.dataset.rendered = String(Number(this.root.dataset.rendered || 0) + 1);
  }

  async fill(body, tab) {
    switch (tab) {
      case "connection":
        body.append(this.connection(), ...this.rows(connectionKeys.filter((k) => k !== "apiKey")));
        break;
      case "models":
        body.append(await this.models(), el("h4", "", "Models olly uses"), ...this.rows(modelKeys));
        break;
      case "files":
        body.append(this.rules());
        break;
      default:
        body.append(...this.rows(this.data.settings.map((s) => s.key).filter(inTab[tab])));
    }
    body.append(el("div", "muted snote", "A saved change applies from the next turn (a turn in progress finishes with the old value), except for settings marked “restart to apply”."));
    body.append(el("div", "muted", `Global file: ${this.data.globalFile}` + (this.data.projectFile ? ` · project file: ${this.data.projectFile}` : "")));
  }

  // connection is the token box and the connection test.
  connection() {
    const box = el("div", "conn");
    const key = this.byKey.get("apiKey") || {};
    const tok = el("input", "token");
    tok.type = "password";
    tok.autocomplete = "new-password";
    tok.dataset.token = "1";
    tok.placeholder = key.isSet ? `a token is set (${key.source}): type to replace it` : "no token set";
    const save = el("button", "", "Save token");
    save.dataset.saveToken = "1";
    const clear = el("button", "", "Remove token");
    clear.dataset.clearToken = "1";
    clear.disabled = !key.isSet;
    const test = el("button", "", "Test connection");
    test.dataset.test = "1";
    const out = el("div", "test-result muted");
    out.dataset.testResult = "1";
    const line = el("div", "srow");
    line.append(el("label", "skey", "apiKey"), tok, save, clear);
    box.append(line, el("div", "sdoc muted", "The token is write-only: olly never sends it back to this page."), test, out);
    return box;
  }

  // rows are one editable line per key.
  rows(keys) {
    return keys.filter((k) => this.byKey.has(k)).map((k) => this.row(this.byKey.get(k)));
  }

  row(s) {
    const r = el("div", "srow");
    r.dataset.key = s.key;
    r.append(el("label", "skey", s.key));
    let input;
    const choices = s.enum && s.enum.length ? s.enum : s.type === "boolean" ? ["true", "false"] : null;
    if (choices) {
      input = el("select", "sval");
      for (const c of choices) {
        const o = el("option", "", c);
        o.value = c;
        input.append(o);
      }
    } else {
      input = el("input", "sval");
      input.spellcheck = false;
    }
    input.value = s.value;
    input.dataset.value = s.value;
    input.dataset.input = s.key;
    const scope = el("select", "scope");
    scope.dataset.scope = s.key;
    for (const [v, label] of [["global", "global file"], ["project", "project file"]]) {
      const o = el("option", "", label);
      o.value = v;
      o.disabled = v === "project" && (s.userOnly || !this.data.projectFile);
      scope.append(o);
    }
    const save = el("button", "", "Save");
    save.dataset.save = s.key;
    const unset = el("button", "link", "unset");
    unset.dataset.unset = s.key;
    unset.title = "Remove the key from the chosen file, so the next layer down applies";
    r.append(input, scope, save, unset, el("span", "muted ssrc", s.source));
    if (s.restart) {
      // The running olly reads this key when it starts (get_settings'
      // restart); the others apply from the next turn.
      const b = el("span", "badge srestart", "restart to apply");
      b.title = "olly serve reads this setting when it starts: restart it for a new value to take effect";
      r.append(b);
    }
    const doc = el("div", "sdoc muted", s.doc + (s.range ? ` (${s.range})` : "") + (s.userOnly ? " · user-only: not in a project file" : ""));
    r.append(doc);
    return r;
  }

  // rules is the sensitive-file patterns as a table of pattern and action.
  rules() {
    const s = this.byKey.get(rulesKey);
    const box = el("div", "rules");
    box.append(el("div", "sdoc muted", s.doc));
    const table = el("table", "rtable");
    table.dataset.rules = "1";
    for (const rule of s.json || []) table.append(this.ruleRow(rule.pattern, rule.action));
    const add = el("button", "", "Add pattern");
    add.dataset.addRule = "1";
    const save = el("button", "", "Save patterns");
    save.dataset.saveRules = "1";
    box.append(table, add, save, el("span", "muted ssrc", s.source));
    return box;
  }

  ruleRow(pattern, action) {
    const tr = el("tr");
    const p = el("input", "rpat");
    p.value = pattern;
    p.spellcheck = false;
    const a = el("select", "ract");
    for (const v of ["ask", "auto"]) {
      const o = el("option", "", v);
      o.value = v;
      a.append(o);
    }
    a.value = action;
    const rm = el("button", "link", "remove");
    rm.dataset.removeRule = "1";
    const td = (x) => { const c = el("td"); c.append(x); return c; };
    tr.append(td(p), td(a), td(rm));
    return tr;
  }

  // models is the table of list_models with enable and context cap.
  async models() {
    const box = el("div", "models");
    let res;
    try { res = await this.client.call("list_models"); } catch (err) { box.append(el("div", "notice error", err.message)); return box; }
    if (res.offline) box.append(el("div", "notice warning", "The server cannot be reached; these are the models cached when it last was: " + res.offline));
    const table = el("table", "mtable");
    const head = el("tr");
    for (const h of ["enabled", "model", "capabilities", "context", "olly requests", "cap"]) head.append(el("th", "", h));
    table.append(head);
    for (const m of res.models) {
      const tr = el("tr");
      tr.dataset.model = m.name;
      const en = el("input");
      en.type = "checkbox";
      en.checked = m.enabled;
      en.dataset.enable = m.name;
      const cap = el("input", "mcap");
      cap.type = "number";
      cap.min = "0";
      cap.placeholder = "none";
      cap.value = m.numCtxCap ? String(m.numCtxCap) : "";
      cap.dataset.saved = cap.value;
      cap.dataset.cap = m.name;
      const caps = (m.capabilities || []).join(" ") + (m.capabilitiesKnown ? "" : " (assumed)");
      const cells = [en, el("span", "", m.name + (m.running ? " · loaded" : "")), el("span", "", caps),
        el("span", "", m.contextLength ? String(m.contextLength) : "–"), el("span", "", `${m.numCtx} (${m.numCtxFrom})`), cap];
      for (const c of cells) { const td = el("td"); td.append(c); tr.append(td); }
      table.append(tr);
    }
    box.append(table);
    return box;
  }

  async click(e) {
    const t = e.target;
    const d = t.dataset;
    if (d.close) { this.hide(); return; }
    if (d.tab) { this.tab = d.tab; await this.refresh().catch((err) => this.toast(err.message)); return; }
    if (d.addRule) { this.root.querySelector("[data-rules]").append(this.ruleRow("", "ask")); return; }
    if (d.removeRule) { t.closest("tr").remove(); return; }
    try {
      if (d.test) await this.test();
      else if (d.save) await this.set({ key: d.save, value: this.root.querySelector(`[data-input="${CSS.escape(d.save)}"]`).value, project: this.scope(d.save) });
      else if (d.unset) await this.set({ key: d.unset, unset: true, project: this.scope(d.unset) });
      else if (d.saveToken) await this.saveToken();
      else if (d.clearToken) await this.set({ key: "apiKey", unset: true });
      else if (d.saveRules) await this.set({ key: rulesKey, value: this.rulesText() });
    } catch (err) { this.toast(err.message); }
  }

  scope(key) {
    const s = this.root.querySelector(`[data-scope="${CSS.escape(key)}"]`);
    return !!s && s.value === "project";
  }

  async set(fields) {
    const r = await this.client.call("set_setting", fields);
    this.toast(`${r.key}: saved in ${r.file}` + (r.note ? ` — ${r.note}` : ""));
    await this.refresh();
  }

  async saveToken() {
    const t = this.root.querySelector("[data-token]");
    if (!t.value) { this.toast("type the token first"); return; }
    const value = t.value;
    t.value = "";
    await this.set({ key: "apiKey", value });
  }

  // rulesText is the table as a YAML flow mapping (JSON strings are YAML).
  rulesText() {
    const rows = [...this.root.querySelectorAll("[data-rules] tr")];
    const parts = rows.map((tr) => [tr.querySelector(".rpat").value.trim(), tr.querySelector(".ract").value])
      .filter(([p]) => p).map(([p, a]) => `${JSON.stringify(p)}: ${a}`);
    return "{" + parts.join(", ") + "}";
  }

  async test() {
    const out = this.root.querySelector("[data-test-result]");
    const fields = {};
    const base = this.root.querySelector('[data-input="baseUrl"]');
    const prov = this.root.querySelector('[data-input="provider"]');
    const tok = this.root.querySelector("[data-token]");
    if (base && base.value !== base.dataset.value) fields.baseUrl = base.value;
    if (prov && prov.value !== prov.dataset.value) fields.provider = prov.value;
    if (tok && tok.value) fields.apiKey = tok.value;
    out.textContent = "testing…";
    const r = await this.client.call("test_connection", fields);
    out.className = "test-result " + (r.ok ? "ok" : "error");
    out.textContent = r.ok
      ? `connected to ${r.provider} at ${r.baseUrl}: version ${r.version}, ${r.latencyMs} ms, ${r.models} model(s)`
      : `${r.provider} at ${r.baseUrl}: ${r.error}`;
  }

  // change saves the models table's controls as they change.
  async change(e) {
    const d = e.target.dataset;
    try {
      if (d.enable) {
        await this.client.call("set_model_enabled", { name: d.enable, enabled: e.target.checked });
      } else if (d.cap) {
        if (e.target.value === d.saved) return; // a second change event for the same value
        d.saved = e.target.value;
        const n = Number(e.target.value || "0");
        const r = await this.client.call("set_model_context", { name: d.cap, context: n });
        this.toast(`${r.model.name}: olly requests ${r.model.numCtx} tokens (${r.model.numCtxFrom})`);
      } else return;
      await this.refresh();
    } catch (err) { this.toast(err.message); await this.refresh(); }
  }
}

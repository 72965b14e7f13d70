// app.js: the page. It renders what the server sends and turns clicks
// and keys into protocol commands; what a turn shows is decided by the
// server (internal/timeline), never here.
import { Client } from "./client.js";
import { applyTimeline, trackToggles, forgetToggles } from "./timeline.js";
import { Review } from "./review.js";
import { Completer } from "./complete.js";
import { Settings } from "./settings.js";
import { TrustPrompts } from "./trust.js";

const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

const state = { busy: false, session: "", modes: [], history: [], historyAt: -1 };
// Test and benchmark hooks: what the page applied, and how late.
window.ollyStats = { frames: 0, lastLatencyMs: 0, ready: 0 };

const client = new Client(onFrame, (s) => {
  $("conn-state").textContent = s === "connected" ? "" : s + "…";
  document.body.dataset.conn = s;
});
// Diffs (approval cards and the review) come in both layouts; the body's
// class shows one. The choice is kept in this browser.
function setDiffMode(split) {
  document.body.classList.toggle("diff-split", split);
  $("diff-mode").textContent = split ? "Unified" : "Side by side";
  try { localStorage.setItem("olly.diff", split ? "split" : "unified"); } catch { /* private mode */ }
}
let storedDiff = "unified";
try { storedDiff = localStorage.getItem("olly.diff") || "unified"; } catch { /* private mode */ }
setDiffMode(storedDiff === "split");
$("diff-mode").addEventListener("click", () => setDiffMode(!document.body.classList.contains("diff-split")));

// Where the timeline is, for a reconnect to resume from (client.js).
client.resumePoint = () => state.resume;
const review = new Review($("review"), client, toast);
const settings = new Settings($("settings"), client, toast);
const trust = new TrustPrompts($("trust"), client, toast);
$("open-settings").addEventListener("click", () => {
  if (settings.root.hidden) { review.hide(); settings.show(); } else settings.hide();
});

function onFrame(f) {
  if (!window.ollyStats.firstFrameMs) window.ollyStats.firstFrameMs = performance.now();
  switch (f.type) {
    case "ready":
      // Another session (a switch, a new one): its workspace's trust
      // requests now, not the previous one's until the timeline is painted.
      if (state.session && f.sessionId !== state.session) trust.refresh();
      state.session = f.sessionId;
      history.replaceState(null, "", "/?session=" + encodeURIComponent(f.sessionId));
      setModel(f.model);
      showWarnings(f.warnings || []);
      window.ollyStats.ready++;
      // The state, the pickers and the sessions list are asked for once the
      // timeline is painted: on a long session they would compete with it.
      state.afterPaint = () => { refreshState(); refreshSessions(); trust.refresh(); };
      clearTimeout(state.afterPaintTimer);
      state.afterPaintTimer = setTimeout(runAfterPaint, 2000); // a timeline that never comes
      break;
    case "web_timeline":
      window.ollyStats.recvMs = window.ollyStats.recvMs || performance.now();
      if (f.sessionId !== client.session && client.session) break;
      if (f.reset && f.sessionId !== state.shown) forgetToggles();
      state.shown = f.sessionId;
      applyTimeline($("timeline"), f);
      // Complete up to lastSeq once no more chunks of a reset follow.
      if (f.reset) state.resume = null;
      if (!f.more) state.resume = { session: f.sessionId, since: f.lastSeq, count: f.count };
      if (f.reset) window.ollyStats.resets = (window.ollyStats.resets || 0) + 1;
      if (f.resumed) window.ollyStats.resumed = (window.ollyStats.resumed || 0) + 1;
      $("title").textContent = f.title || "New session";
      document.title = (f.title || "New session") + " · olly";
      window.ollyStats.frames++;
      window.ollyStats.loading = !!f.more;
      window.ollyStats.appliedAt = Date.now();
      if (f.reset && !window.ollyStats.paintMs) {
        // The first paint: the frame after the timeline is in place.
        // (requestAnimationFrame runs just before that frame is painted.)
        requestAnimationFrame(() => { window.ollyStats.paintMs = performance.now(); });
      }
      window.ollyStats.lastSeq = f.lastSeq;
      if (state.afterPaint) requestAnimationFrame(() => setTimeout(runAfterPaint, 0));
      if (f.at) window.ollyStats.lastLatencyMs = Date.now() - f.at;
      if (f.reset) scrollToEnd();
      else if (nearEnd()) scrollToEnd();
      break;
    case "turn_started":
      setBusy(true);
      break;
    case "turn_finished":
      setBusy(false);
      refreshSessions();
      if (!review.root.hidden) review.refresh();
      break;
    case "title_changed":
    case "session_settings":
      refreshSessions();
      break;
    case "warning":
      // A project program did not start for want of trust: ask (the
      // codes event.WarningMCPUntrusted and event.WarningHooksUntrusted).
      if (f.data && ["mcp_untrusted", "hooks_untrusted"].includes(f.data.code)) trust.refresh();
      break;
    case "trust_resolved":
      // A trust prompt was answered (in this tab or another one showing
      // the session): list what still waits.
      trust.refresh();
      break;
    case "keep_undo_result":
    case "file_change_result":
      if (!review.root.hidden) review.refresh();
      break;
  }
}

function runAfterPaint() {
  const fn = state.afterPaint;
  state.afterPaint = null;
  clearTimeout(state.afterPaintTimer);
  if (fn) fn();
}

function nearEnd() {
  const t = $("timeline");
  return t.scrollHeight - t.scrollTop - t.clientHeight < 120;
}
function scrollToEnd() {
  const t = $("timeline");
  t.scrollTop = t.scrollHeight;
}

function setBusy(b) {
  state.busy = b;
  $("stop").disabled = !b;
  document.body.classList.toggle("busy", b);
}

function showWarnings(ws) {
  const box = $("warnings");
  box.replaceChildren(...ws.map((w) => el("div", "notice warning", w)));
}

export function toast(msg) {
  const t = $("toast");
  t.textContent = msg;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 6000);
}

async function refreshState() {
  try {
    const st = await client.call("get_state");
    setBusy(st.isStreaming);
    if (st.model) setModel(st.model.id);
    fillModes(st.mode);
    loadCompletions();
    loadHistory();
    const ms = await client.call("get_available_models");
    fillModels((ms.models || []).map((m) => m.id), st.model ? st.model.id : "");
  } catch (e) { /* a new connection will ask again */ }
}

// The modes set_mode takes (docs/rpc.md).
const modes = ["agent", "plan", "review", "security-review", "deep-explore", "explore", "chat"];

function fillModes(current) {
  const sel = $("mode");
  sel.replaceChildren(...modes.map((m) => {
    const o = el("option", "", m);
    o.value = m;
    return o;
  }));
  sel.value = current || "agent";
}

function setModel(name) {
  const sel = $("model");
  if (![...sel.options].some((o) => o.value === name)) {
    const o = el("option", "", name || "no model");
    o.value = name || "";
    sel.append(o);
  }
  sel.value = name || "";
}

function fillModels(names, current) {
  const sel = $("model");
  sel.replaceChildren(...names.map((n) => {
    const o = el("option", "", n);
    o.value = n;
    return o;
  }));
  setModel(current);
}

$("model").addEventListener("change", async (e) => {
  try { await client.call("set_model", { modelId: e.target.value }); } catch (err) { toast(err.message); }
});

$("mode").addEventListener("change", async (e) => {
  try { await client.call("set_mode", { mode: e.target.value }); } catch (err) { toast(err.message); }
});

// Sessions panel.
async function refreshSessions() {
  const q = $("session-search").value.trim();
  const all = $("all-workspaces").checked;
  try {
    let list;
    if (q) {
      const r = await client.call("search_sessions", { query: q, ...(all ? {} : {}) });
      list = (r.sessions || []).map((m) => m.session);
    } else {
      const r = await client.call("list_sessions", { all, limit: 100 });
      list = r.sessions || [];
    }
    renderSessions(list);
  } catch (e) { /* shown on the next refresh */ }
}

function renderSessions(list) {
  const ul = $("session-list");
  ul.replaceChildren(...list.map((s) => {
    const li = el("li", s.id === state.session ? "current" : "");
    li.dataset.session = s.id;
    if (s.id !== state.session) {
      const tick = el("input", "tick");
      tick.type = "checkbox";
      tick.title = "Select for deleting";
      tick.dataset.tick = s.id;
      li.append(tick);
    }
    li.append(el("span", "stitle", s.title || "New session"));
    if (s.status && s.status !== "idle") {
      // generating shows as running; interrupted: left running by an olly that stopped.
      const st = el("span", "sstatus st-" + s.status, s.status === "generating" ? "running" : s.status);
      li.append(st);
    }
    if (s.pending && (s.pending.additions || s.pending.deletions)) {
      const b = el("span", "sbadge");
      b.title = `${s.pending.files} file(s) with changes not yet kept or undone`;
      b.append(el("span", "add", "+" + s.pending.additions), " ", el("span", "del", "−" + s.pending.deletions));
      li.append(b);
    }
    const meta = el("span", "muted smeta");
    meta.textContent = [s.mode, new Date(s.updatedAt).toLocaleString()].filter(Boolean).join(" · ");
    li.append(meta);
    if (s.id === state.session) {
      const rn = el("button", "link", "rename");
      rn.dataset.rename = s.id;
      li.append(rn);
    }
    return li;
  }));
}

$("session-list").addEventListener("change", () => {
  $("delete-sessions").disabled = !document.querySelector("#session-list input[data-tick]:checked");
});
$("delete-sessions").addEventListener("click", async () => {
  const ids = [...document.querySelectorAll("#session-list input[data-tick]:checked")].map((t) => t.dataset.tick);
  if (!ids.length || !confirm(`Delete ${ids.length} session(s) with their events and checkpoints? This cannot be undone.`)) return;
  try {
    const r = await client.call("delete_sessions", { ids });
    if (r.refused && r.refused.length) toast(r.refused.map((x) => `${x.sessionId}: ${x.error}`).join("\n"));
  } catch (err) { toast(err.message); }
  $("delete-sessions").disabled = true;
  refreshSessions();
});
$("session-list").addEventListener("click", async (e) => {
  if (e.target.closest("input[data-tick]")) return;
  const rn = e.target.closest("[data-rename]");
  if (rn) {
    const title = prompt("New name for the session", $("title").textContent);
    if (title) {
      try { await client.call("set_session_name", { name: title }); } catch (err) { toast(err.message); }
    }
    return;
  }
  const li = e.target.closest("li[data-session]");
  if (li && li.dataset.session !== state.session) {
    review.hide();
    client.switchTo(li.dataset.session);
  }
});
let searchTimer;
$("session-search").addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(refreshSessions, 250);
});
$("all-workspaces").addEventListener("change", refreshSessions);
$("new-session").addEventListener("click", async () => {
  try {
    const r = await client.call("new_session");
    review.hide();
    client.switchTo(r.sessionId);
  } catch (err) { toast(err.message); }
});

// Timeline buttons: each carries its command in data attributes.
$("timeline").addEventListener("click", async (e) => {
  if (e.target.closest("[data-review]")) { review.show(); return; }
  const rp = e.target.closest("[data-review-path]");
  if (rp) { review.show(rp.dataset.reviewPath); return; }
  const b = e.target.closest("button[data-cmd]");
  if (!b) return;
  const d = b.dataset;
  const fields = {};
  switch (d.cmd) {
    case "approve": {
      fields.approvalId = d.approvalId;
      const t = document.querySelector(`textarea[data-edit="${CSS.escape(d.approvalId)}"]`);
      if (t && t.value !== t.defaultValue) fields.command = t.value;
      break;
    }
    case "deny": {
      fields.approvalId = d.approvalId;
      const r = document.querySelector(`input[data-reason="${CSS.escape(d.approvalId)}"]`);
      if (r && r.value) fields.reason = r.value;
      break;
    }
    case "keep":
    case "undo":
      if (d.all) fields.all = true; else fields.path = d.path;
      break;
    case "prompt":
      fields.message = d.message;
      if (state.busy) fields.streamingBehavior = "followUp";
      break;
    case "branch": {
      try {
        const r = await client.call("branch", { entryId: d.entry });
        $("prompt").value = r.text || "";
        $("prompt").focus();
      } catch (err) { toast(err.message); }
      return;
    }
    case "fork": {
      // pi's fork: a new session with the conversation before the prompt.
      try {
        const r = await client.call("fork", { entryId: d.entry });
        review.hide();
        client.switchTo(r.sessionId);
        $("prompt").value = r.text || "";
        $("prompt").focus();
      } catch (err) { toast(err.message); }
      return;
    }
  }
  b.disabled = true;
  try {
    await client.call(d.cmd, fields);
  } catch (err) {
    toast(err.message);
    b.disabled = false;
  }
});

// Composer.
$("composer").addEventListener("submit", (e) => {
  e.preventDefault();
  send();
});
$("prompt").addEventListener("keydown", (e) => {
  if (completer.key(e)) return;
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    send();
    return;
  }
  const t = e.target;
  if (e.key === "ArrowUp" && t.selectionStart === 0 && state.history.length) {
    e.preventDefault();
    state.historyAt = Math.min(state.historyAt + 1, state.history.length - 1);
    t.value = state.history[state.history.length - 1 - state.historyAt];
  } else if (e.key === "ArrowDown" && state.historyAt >= 0 && t.selectionStart === t.value.length) {
    e.preventDefault();
    state.historyAt--;
    t.value = state.historyAt < 0 ? "" : state.history[state.history.length - 1 - state.historyAt];
  }
});

async function send() {
  const t = $("prompt");
  const message = t.value.trim();
  if (!message) return;
  const fields = { message };
  if (state.busy) fields.streamingBehavior = $("busy-mode").value;
  try {
    await client.call("prompt", fields);
    if (state.history[state.history.length - 1] !== message) state.history.push(message);
    state.historyAt = -1;
    t.value = "";
  } catch (err) {
    toast(err.message);
  }
}

$("stop").addEventListener("click", async () => {
  try { await client.call("abort"); } catch (err) { toast(err.message); }
});

// Completion of /commands (get_commands) and @files (complete_files).
const completer = new Completer($("prompt"), $("completions"), async (kind, q) => {
  if (kind === "/") return state.commands.filter((c) => c.name.startsWith(q)).map((c) => ({ text: "/" + c.name + " ", label: "/" + c.name, hint: c.description }));
  const r = await client.call("complete_files", { query: q });
  return (r.files || []).map((f) => ({ text: "@" + f + " ", label: f }));
});
state.commands = [];
// Prompt history: the store's (get_prompt_history), oldest first, so that
// it survives reloads and includes prompts typed in the terminal.
async function loadHistory() {
  try {
    const r = await client.call("get_prompt_history", { limit: 200 });
    state.history = (r.prompts || []).map((p) => p.text).reverse();
    state.historyAt = -1;
  } catch { /* the page keeps what it sent */ }
}
async function loadCompletions() {
  try { state.commands = (await client.call("get_commands")).commands || []; } catch { /* asked again on the next connection */ }
}

trackToggles($("timeline"));
client.connect(new URLSearchParams(location.search).get("session") || "");

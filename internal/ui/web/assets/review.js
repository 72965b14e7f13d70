// review.js: the files-changed review. The changes, their hunks and the
// "change X of Y" position come from the server (list_changes,
// review_navigate); keep and undo are its commands.

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

export class Review {
  constructor(root, client, toast) {
    this.root = root;
    this.client = client;
    this.toast = toast;
    this.focus = "";
    root.addEventListener("click", (e) => this.click(e));
  }

  async show(path) {
    this.root.hidden = false;
    if (path) {
      try { await this.client.call("review_navigate", { move: "focus", path }); } catch (err) { this.toast(err.message); }
    }
    await this.refresh();
  }

  hide() {
    this.root.hidden = true;
    this.root.replaceChildren();
  }

  async refresh() {
    let ch;
    try { ch = await this.client.call("list_changes"); } catch (err) { this.toast(err.message); return; }
    this.render(ch);
  }

  render(ch) {
    const pos = ch.position || { current: 0, total: 0 };
    const head = el("div", "rhead");
    head.append(el("strong", "", "Review"),
      el("span", "rpos", pos.total ? `change ${pos.current} of ${pos.total}` : "no pending changes"),
      el("span", "muted", `+${ch.additions} −${ch.deletions}`));
    for (const [label, move] of [["◀ prev", "prev"], ["next ▶", "next"]]) {
      const b = el("button", "", label);
      b.dataset.move = move;
      head.append(b);
    }
    for (const [label, cmd] of [["Keep all", "keep"], ["Undo all", "undo"]]) {
      const b = el("button", "", label);
      b.dataset.rcmd = cmd;
      b.dataset.all = "1";
      head.append(b);
    }
    const close = el("button", "link", "close");
    close.dataset.close = "1";
    head.append(close);
    const files = (ch.files || []).map((f) => this.file(f, pos));
    this.root.replaceChildren(head, ...files);
    const cur = this.root.querySelector(".hunk.current");
    if (cur) cur.scrollIntoView({ block: "nearest" });
  }

  file(f, pos) {
    const box = el("div", "rfile");
    const h = el("div", "rfhead");
    h.append(el("span", "fpath", f.path), el("span", "muted", f.action),
      el("span", "add", "+" + f.additions), el("span", "del", "−" + f.deletions));
    for (const cmd of ["keep", "undo"]) {
      const b = el("button", "", cmd === "keep" ? "Keep file" : "Undo file");
      b.dataset.rcmd = cmd;
      b.dataset.path = f.path;
      h.append(b);
    }
    box.append(h);
    for (const hk of f.hunks || []) {
      const cur = pos.filePath === f.path && pos.hunk === hk.number;
      const d = el("div", "hunk" + (cur ? " current" : ""));
      d.dataset.hunk = hk.number;
      const hh = el("div", "hhead", `@@ -${hk.oldStart},${hk.oldLines} +${hk.newStart},${hk.newLines} @@`);
      for (const cmd of ["keep", "undo"]) {
        const b = el("button", "", cmd === "keep" ? "Keep" : "Undo");
        b.dataset.rcmd = cmd;
        b.dataset.path = f.path;
        b.dataset.hunk = hk.number;
        hh.append(b);
      }
      d.append(hh, unified(hk), split(hk));
      box.append(d);
    }
    return box;
  }

  async click(e) {
    const t = e.target;
    if (t.dataset.close) { this.hide(); return; }
    try {
      if (t.dataset.move) {
        await this.client.call("review_navigate", { move: t.dataset.move });
      } else if (t.dataset.rcmd) {
        const f = {};
        if (t.dataset.all) f.all = true;
        else {
          f.path = t.dataset.path;
          if (t.dataset.hunk) f.hunk = Number(t.dataset.hunk);
        }
        t.disabled = true;
        const r = await this.client.call(t.dataset.rcmd, f);
        if (r.conflicts && r.conflicts.length) this.toast(`${r.conflicts.length} change(s) not undone: the file changed since`);
      } else return;
    } catch (err) { this.toast(err.message); }
    await this.refresh();
  }
}

const lines = (text) => (text ? text.replace(/\n$/, "").split("\n") : []);

// unified is a hunk as one column of -/+ lines.
function unified(hk) {
  const pre = el("pre", "diff unified");
  const add = (prefix, cls, text) => {
    for (const l of lines(text)) pre.append(el("span", cls, prefix + l), "\n");
  };
  add(" ", "ctx", hk.contextBefore);
  add("-", "del", hk.oldText);
  add("+", "add", hk.newText);
  add(" ", "ctx", hk.contextAfter);
  return pre;
}

// split is a hunk side by side: the old lines left, the new right, with
// their line numbers.
function split(hk) {
  const table = el("table", "diff split");
  const row = (oldNo, oldText, oldCls, newNo, newText, newCls) => {
    const tr = el("tr");
    tr.append(el("td", "ln", oldNo), el("td", oldCls, oldText), el("td", "ln", newNo), el("td", newCls, newText));
    table.append(tr);
  };
  const before = lines(hk.contextBefore), after = lines(hk.contextAfter);
  const olds = lines(hk.oldText), news = lines(hk.newText);
  let o = hk.oldStart - before.length, n = hk.newStart - before.length;
  if (hk.oldLines === 0) o++; // a pure insertion's oldStart is the line before it
  if (hk.newLines === 0) n++;
  for (const l of before) row(String(o++), l, "ctx", String(n++), l, "ctx");
  for (let i = 0; i < Math.max(olds.length, news.length); i++) {
    const hasOld = i < olds.length, hasNew = i < news.length;
    row(hasOld ? String(o++) : "", hasOld ? olds[i] : "", hasOld ? "del" : "none",
      hasNew ? String(n++) : "", hasNew ? news[i] : "", hasNew ? "add" : "none");
  }
  for (const l of after) row(String(o++), l, "ctx", String(n++), l, "ctx");
  return table;
}

// complete.js: completion in the prompt box. A word starting with @ asks
// the server for workspace files; a / at the start of the prompt lists
// the slash commands. Up/Down pick, Tab or Enter take, Escape closes.

export class Completer {
  constructor(input, box, source) {
    this.input = input;
    this.box = box;
    this.source = source;
    this.items = [];
    this.sel = 0;
    this.seq = 0;
    input.addEventListener("input", () => this.update());
    box.addEventListener("mousedown", (e) => {
      const d = e.target.closest("[data-i]");
      if (!d) return;
      e.preventDefault();
      this.take(Number(d.dataset.i));
    });
  }

  // word returns the token being typed: @… anywhere, /… at the start.
  word() {
    const upto = this.input.value.slice(0, this.input.selectionStart);
    const m = upto.match(/(^|\s)(@[^\s]*)$/) || upto.match(/^(\s*)(\/[^\s]*)$/);
    if (!m) return null;
    return { kind: m[2][0], query: m[2].slice(1), start: upto.length - m[2].length, end: upto.length };
  }

  async update() {
    const w = this.word();
    if (!w) { this.close(); return; }
    const seq = ++this.seq;
    let items;
    try { items = await this.source(w.kind, w.query); } catch { items = []; }
    if (seq !== this.seq) return; // typed on meanwhile
    this.items = items.slice(0, 30);
    this.sel = 0;
    this.word_ = w;
    this.render();
  }

  render() {
    if (!this.items.length) { this.close(); return; }
    this.box.replaceChildren(...this.items.map((it, i) => {
      const d = document.createElement("div");
      d.dataset.i = i;
      if (i === this.sel) d.className = "sel";
      d.textContent = it.label;
      if (it.hint) {
        const h = document.createElement("span");
        h.className = "hint";
        h.textContent = it.hint;
        d.append(h);
      }
      return d;
    }));
    this.box.hidden = false;
  }

  close() {
    this.items = [];
    this.box.hidden = true;
  }

  // key handles a key while the list is open; true when it took it.
  key(e) {
    if (this.box.hidden || !this.items.length) return false;
    switch (e.key) {
      case "ArrowDown": this.sel = (this.sel + 1) % this.items.length; break;
      case "ArrowUp": this.sel = (this.sel + this.items.length - 1) % this.items.length; break;
      case "Tab":
      case "Enter": this.take(this.sel); break;
      case "Escape": this.close(); break;
      default: return false;
    }
    e.preventDefault();
    if (!this.box.hidden) this.render();
    return true;
  }

  take(i) {
    const it = this.items[i];
    const w = this.word_;
    if (!it || !w) return;
    const v = this.input.value;
    this.input.value = v.slice(0, w.start) + it.text + v.slice(w.end);
    const at = w.start + it.text.length;
    this.input.setSelectionRange(at, at);
    this.close();
    this.input.focus();
  }
}

// trust.js: trust prompts. A project's MCP servers (.mcp.json) and hook
// files are programs the repository asks olly to run; they run only once a
// person trusted them. The server lists the ones waiting, with exactly
// what they run (get_trust_requests); the person's answer goes back with
// set_trust, which accepts only a request that waits. Nothing here decides
// on its own: every answer is a click.

const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};

// The person's choices, as set_trust names them.
const choices = [
  ["trust", "Trust", "Run it in this workspace, as it is now"],
  ["not_now", "Not now", "Do not run it, and do not ask again in this session"],
  ["never", "Never ask again", "Do not run it, and do not ask again until it changes"],
];

export class TrustPrompts {
  constructor(root, client, toast) {
    this.root = root;
    this.client = client;
    this.toast = toast;
    root.addEventListener("click", (e) => this.click(e));
  }

  async refresh() {
    let r;
    try { r = await this.client.call("get_trust_requests"); } catch { return; /* asked again on the next connection */ }
    this.render(r.requests || []);
  }

  render(reqs) {
    this.root.hidden = reqs.length === 0;
    this.root.replaceChildren(...reqs.map((r) => this.card(r)));
  }

  card(r) {
    const c = el("div", "trust-card");
    c.dataset.trustId = r.id;
    const what = r.kind === "mcp" ? `the MCP server “${r.name}” of ${r.source}` : `the hooks of ${r.source}`;
    c.append(el("div", "ttitle", `Trust ${what}?`));
    c.append(el("div", "muted", `The project asks olly to run this in ${r.workspace}. It runs only if you trust it; a change to it asks again.`));
    const list = el("ul", "truns");
    for (const run of r.runs || []) list.append(this.run(run));
    c.append(list);
    if (r.files && r.files.length) {
      const f = el("div", "tfiles");
      f.append(el("span", "", "Project files it runs, fingerprinted (editing one asks again): "));
      for (const name of r.files) f.append(el("code", "", name), " ");
      c.append(f);
    }
    c.append(el("div", "muted tfp", "fingerprint " + r.fingerprint.slice(0, 16)));
    const bar = el("div", "tbar");
    for (const [decision, label, title] of choices) {
      const b = el("button", decision === "trust" ? "primary" : "", label);
      b.title = title;
      b.dataset.trustDecision = decision;
      bar.append(b);
    }
    c.append(bar);
    return c;
  }

  run(run) {
    const li = el("li");
    if (run.event) {
      li.append(el("span", "chip", run.event + (run.matcher ? ` (${run.matcher})` : "")), " ",
        el("code", "", run.command), el("span", "muted", run.timeout ? `  timeout ${run.timeout}` : ""));
      return li;
    }
    if (run.url) {
      li.append(el("span", "chip", run.transport || "http"), " ", el("code", "", run.url));
      if (run.headers && run.headers.length) li.append(el("span", "muted", "  headers: " + run.headers.join(", ")));
      return li;
    }
    // The server quotes the command line (trust.CommandLine): shown as it is.
    li.append(el("code", "", run.line || run.command));
    for (const kv of run.env || []) li.append(" ", el("span", "chip", kv));
    return li;
  }

  async click(e) {
    const b = e.target.closest("button[data-trust-decision]");
    if (!b) return;
    const card = b.closest("[data-trust-id]");
    for (const x of card.querySelectorAll("button")) x.disabled = true;
    try {
      const r = await this.client.call("set_trust", { requestId: card.dataset.trustId, decision: b.dataset.trustDecision });
      this.render(r.requests || []);
    } catch (err) {
      this.toast(err.message);
      this.refresh();
    }
  }
}

// client.js: the protocol over the WebSocket. Commands are RPC mode's
// (docs/rpc.md), answered by id; every other frame goes to onFrame.
// The connection comes back by itself after a drop or a server restart.

export class Client {
  constructor(onFrame, onState) {
    this.onFrame = onFrame;
    this.onState = onState;
    this.nextId = 1;
    this.pending = new Map();
    this.session = "";
    this.delay = 250;
    this.closed = false;
  }

  // connect opens the WebSocket. A reconnect to the session the page shows
  // sends where its timeline is (resumePoint: the last stored event it
  // holds and its item count), so the server sends only what changed.
  connect(session) {
    if (session !== undefined) this.session = session;
    const b = window.ollyBoot;
    window.ollyBoot = null;
    if (b && !b.closed && b.session === this.session) {
      // boot.js's socket, opened while the modules loaded.
      this.attach(b.ws);
      if (b.open) this.opened();
      for (const f of b.frames) this.receive(f);
      return;
    }
    if (b) b.ws.close();
    let q = this.session ? "?session=" + encodeURIComponent(this.session) : "";
    const r = this.resumePoint && this.resumePoint();
    if (session === undefined && r && this.session && r.session === this.session && r.since > 0) {
      q += `&since=${r.since}&count=${r.count}`;
    }
    this.attach(new WebSocket(`ws://${location.host}/ws${q}`));
  }

  attach(ws) {
    this.ws = ws;
    this.onState("connecting");
    ws.onopen = () => this.opened();
    ws.onmessage = (m) => this.receive(m.data);
    ws.onclose = () => {
      if (this.ws !== ws) return;
      for (const [, p] of this.pending) p.reject(new Error("the connection to olly was lost"));
      this.pending.clear();
      if (this.closed) return;
      this.onState("disconnected");
      setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(this.delay * 2, 5000);
    };
  }

  opened() {
    this.delay = 250;
    this.onState("connected");
  }

  // switchTo opens another session: a new connection follows it.
  switchTo(session) {
    const old = this.ws;
    this.ws = null;
    if (old) old.close();
    this.connect(session);
  }

  receive(text) {
    let f;
    try { f = JSON.parse(text); } catch { return; }
    if (f.type === "response" && f.id !== undefined && this.pending.has(f.id)) {
      const p = this.pending.get(f.id);
      this.pending.delete(f.id);
      if (f.success) p.resolve(f.data ?? {}); else p.reject(new Error(f.error || "failed"));
      return;
    }
    if (f.type === "ready") this.session = f.sessionId;
    this.onFrame(f);
  }

  // call sends a command and resolves with its result.
  call(type, fields = {}) {
    return new Promise((resolve, reject) => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
        reject(new Error("not connected to olly"));
        return;
      }
      const id = "w" + this.nextId++;
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ id, type, ...fields }));
    });
  }
}

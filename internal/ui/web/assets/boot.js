// boot.js: opens the WebSocket as soon as the page starts, before the
// modules load, so that the server builds the timeline while the browser
// fetches them. client.js takes the socket over with what it received.
// (A classic script: it runs at once, not after every module.)
(function () {
  "use strict";
  const session = new URLSearchParams(location.search).get("session") || "";
  const ws = new WebSocket(`ws://${location.host}/ws` + (session ? "?session=" + encodeURIComponent(session) : ""));
  const boot = { ws, session, frames: [], open: false, closed: false };
  ws.onopen = () => { boot.open = true; };
  ws.onmessage = (m) => { boot.frames.push(m.data); };
  ws.onclose = () => { boot.closed = true; };
  window.ollyBoot = boot;
})();

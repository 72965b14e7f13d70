// timeline.js: puts the server's rendered items in place. An item that
// changed is replaced whole; what the person did inside it is carried
// over: the collapsibles they opened or closed (the others keep the
// server's choice: a running group open, a finished one closed) and a
// command or reason they were typing.

// toggled holds the person's own choices, by the collapsible's data-key.
const toggled = new Map();

export function trackToggles(root) {
  root.addEventListener("click", (e) => {
    const s = e.target.closest("summary");
    const d = s && s.parentElement;
    if (d && d.dataset.key) toggled.set(d.dataset.key, !d.open);
  });
}

export function forgetToggles() {
  toggled.clear();
}

export function applyTimeline(root, frame) {
  if (frame.reset) root.replaceChildren();
  for (const { i, html } of frame.items || []) {
    let node = root.children[i];
    while (!node) {
      node = document.createElement("div");
      node.className = "item";
      root.appendChild(node);
      node = root.children[i];
    }
    replaceItem(node, html);
  }
  while (root.children.length > frame.count) root.lastElementChild.remove();
}

function replaceItem(node, html) {
  const edits = new Map();
  for (const t of node.querySelectorAll("textarea[data-edit], input[data-reason]")) {
    if (t.value !== t.defaultValue) edits.set(t.dataset.edit || "r" + t.dataset.reason, t.value);
  }
  node.innerHTML = html;
  for (const d of node.querySelectorAll("details[data-key]")) {
    if (toggled.has(d.dataset.key)) d.open = toggled.get(d.dataset.key);
  }
  for (const t of node.querySelectorAll("textarea[data-edit], input[data-reason]")) {
    const k = t.dataset.edit || "r" + t.dataset.reason;
    if (edits.has(k)) t.value = edits.get(k);
  }
}

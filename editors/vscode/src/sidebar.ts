// The sidebar's page. Kept free of the vscode module for node's tests.

function escapeAttr(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * sidebarHtml is the webview's document: an iframe of `olly serve` at url,
 * or, with no url, a link that opens olly in a terminal.
 */
export function sidebarHtml(url: string): string {
  const csp = url
    ? `default-src 'none'; frame-src ${escapeAttr(new URL(url).origin)}; style-src 'unsafe-inline';`
    : "default-src 'none'; style-src 'unsafe-inline';";
  const body = url
    ? `<iframe src="${escapeAttr(url)}" title="olly"></iframe>`
    : `<p>No <code>olly serve</code> page is configured (setting <code>olly.serveUrl</code>).</p>
<p><a href="command:olly.openTerminal">Open olly in a terminal</a></p>`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<style>html,body{height:100%;margin:0;padding:0}iframe{border:0;width:100%;height:100%}p{padding:0 12px}</style>
</head>
<body>
${body}
</body>
</html>`;
}

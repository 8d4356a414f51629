// The barrier timeline as one self-contained HTML page: the model as JSON, the renderer
// (timeline-view.ts) as inline script, inline CSS, nothing fetched. `phaseflip sim --timeline FILE`
// writes it as a file (CI artifacts, bug reports); the editor's timeline panel shows the same page
// in a webview, where the host script talks to the extension and the colours are the theme's.
import type { TimelineModel } from './timeline';
import { timelineView } from './timeline-view';

export interface TimelinePageOptions {
  /**
   * In a VS Code webview: a nonce for the Content-Security-Policy, and the page talks to the
   * extension (`travel`, `reveal`, `ready` out; `model` in). Without it, a standalone file.
   */
  webview?: { nonce: string; cspSource: string };
}

/** JSON that is safe inside a `<script>` element (no `</script>`, no `<!--`). */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

/** The page's host object: the webview's messages to the extension, or nothing (the standalone file). */
const WEBVIEW_HOST = `(() => {
  const vscode = acquireVsCodeApi();
  return {
    travel: (cycle) => vscode.postMessage({ type: 'travel', cycle }),
    reveal: (at) => vscode.postMessage({ type: 'reveal', at }),
    vscode,
  };
})()`;

export function timelineHtml(model: TimelineModel, options: TimelinePageOptions = {}): string {
  const web = options.webview;
  const title = `Barrier timeline${model.title ? ` · ${model.title}` : ''}`;
  const csp = web
    ? `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${web.cspSource} 'nonce-${web.nonce}'; script-src 'nonce-${web.nonce}';">`
    : `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline';">`;
  const nonce = web ? ` nonce="${web.nonce}"` : '';
  // The renderer's own source: the same function the panel runs. `__name` is esbuild's helper for
  // kept function names, defined in case a build keeps them.
  const boot = `
var __name = function (f) { return f; };
var model = JSON.parse(document.getElementById('timeline-data').textContent);
var host = ${web ? WEBVIEW_HOST : '{}'};
var view = (${timelineView.toString()})(model, host);
${
  web
    ? `window.addEventListener('message', function (e) { if (e.data && e.data.type === 'model') view.update(e.data.model); });
host.vscode.postMessage({ type: 'ready' });`
    : ''
}`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
${csp}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style${nonce}>
  html, body { margin: 0; height: 100%; }
  body { display: flex; flex-direction: column; background: var(--vscode-editor-background, #1e1e1e); color: var(--vscode-editor-foreground, #d4d4d4);
    font: 12px var(--vscode-font-family, system-ui, sans-serif); }
  header { display: flex; gap: 8px; align-items: center; padding: 4px 8px; border-bottom: 1px solid var(--vscode-panel-border, rgba(128,128,128,0.35)); }
  header h1 { font-size: 12px; font-weight: 600; margin: 0 8px 0 0; }
  header .legend { color: var(--vscode-descriptionForeground, #9d9d9d); }
  header .swatch { display: inline-block; width: 10px; height: 10px; margin: 0 3px 0 8px; vertical-align: -1px; }
  .swatch.even { background: var(--vscode-charts-blue, #3794ff); }
  .swatch.odd { background: var(--vscode-charts-purple, #b180d7); }
  .swatch.tick { background: var(--vscode-charts-yellow, #cca700); }
  .swatch.tx { background: var(--vscode-charts-green, #89d185); }
  .swatch.wait { background: var(--vscode-charts-orange, #d18616); }
  .swatch.error { background: var(--vscode-errorForeground, #f48771); }
  button { background: var(--vscode-button-secondaryBackground, #3a3d41); color: var(--vscode-button-secondaryForeground, #fff); border: 0; padding: 2px 8px; cursor: pointer; }
  main { position: relative; flex: 1; min-height: 0; }
  canvas { position: absolute; inset: 0; width: 100%; height: 100%; display: block; cursor: crosshair; }
  #tooltip { position: absolute; display: none; pointer-events: none; white-space: pre; max-width: 70vw; overflow: hidden; padding: 4px 6px; z-index: 1;
    background: var(--vscode-editorHoverWidget-background, #252526); color: var(--vscode-editorHoverWidget-foreground, #ccc);
    border: 1px solid var(--vscode-editorHoverWidget-border, #454545); font-family: var(--vscode-editor-font-family, monospace); }
  #status { padding: 3px 8px; color: var(--vscode-descriptionForeground, #9d9d9d); border-top: 1px solid var(--vscode-panel-border, rgba(128,128,128,0.35)); }
</style>
</head>
<body>
<header>
  <h1>${escapeHtml(title)}</h1>
  <button data-zoom="in" title="Zoom in (+)">+</button><button data-zoom="out" title="Zoom out (-)">−</button><button data-zoom="fit" title="Fit (0)">fit</button>
  <span class="legend"><span class="swatch even"></span>even phase
  <span class="swatch odd"></span>odd phase
  <span class="swatch tick"></span>arrival
  <span class="swatch tx"></span>expect_tx ▼ / complete_tx ▲
  <span class="swatch wait"></span>blocked
  <span class="swatch error"></span>still blocked at the end / report</span>
</header>
<main><canvas id="timeline"></canvas><div id="tooltip"></div></main>
<div id="status"></div>
<script type="application/json" id="timeline-data">${scriptJson(model)}</script>
<script${nonce}>${boot}</script>
</body>
</html>
`;
}

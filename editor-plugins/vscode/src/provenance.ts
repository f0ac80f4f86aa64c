/**
 * The provenance view: one webview panel, reused, showing a memory and each of its sources with
 * the redacted excerpt and a link that opens the session file at the source's first line.
 *
 * The panel runs no script: its links are `command:loreline.openSource` URIs, the only command
 * it may run (`enableCommandUris`). Everything shown is HTML-escaped. The markdown preview is not
 * used because it refuses `file:` links.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { day, Methods, type Provenance, span } from './protocol';
import type { Server } from './server';

const OPEN_SOURCE = 'loreline.openSource';
const OPEN_IN_VIEWER = 'loreline.openInViewer';

function html(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function openLink(sessionUri: string, line: number): string {
  return `command:${OPEN_SOURCE}?${encodeURIComponent(JSON.stringify([sessionUri, line]))}`;
}

const STYLE = `
  body { padding: 0 1.5em 1em; line-height: 1.5; }
  h1 { font-size: 1.3em; border-bottom: 1px solid var(--vscode-panel-border); padding-bottom: .3em; }
  h2 { font-size: 1.1em; margin-top: 1.6em; }
  .meta { opacity: .8; font-style: italic; }
  .source { border-left: 3px solid var(--vscode-textLink-foreground); padding: .2em 0 .2em 1em; margin: 1em 0; }
  pre { white-space: pre-wrap; background: var(--vscode-textCodeBlock-background); padding: .6em .8em;
        font-family: var(--vscode-editor-font-family); }
  code { font-family: var(--vscode-editor-font-family); }`;

/** The panel's HTML for one memory and its sources. */
export function renderProvenance(found: Provenance): string {
  const m = found.memory;
  const files = m.files.length ? ` · files: ${m.files.map((f) => `<code>${html(f)}</code>`).join(', ')}` : '';
  const cues = m.cues?.length ? `<p class="meta">Found by: ${m.cues.map((c) => html(c)).join('; ')}</p>` : '';
  const sources = found.sources.map((s) => `
    <div class="source">
      <div><strong>${html(s.tool)}</strong> · session <code>${html(s.sessionShort ?? s.sessionId.slice(0, 8))}</code> ·
        ${html(day(s.observedAt))} · lines ${html(span(s))}</div>
      <div><a href="${html(openLink(s.sessionUri, s.lineStart))}" title="${html(s.sessionPath)}">Open
        ${html(path.basename(s.sessionPath))} at line ${s.lineStart}</a></div>
      <pre>${html(s.excerpt)}</pre>
    </div>`).join('');
  return `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8">
    <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';">
    <style>${STYLE}</style></head><body>
    <h1>${html(m.kind)} #${m.id}</h1>
    <p><a href="${html(`command:${OPEN_IN_VIEWER}?${encodeURIComponent(JSON.stringify([m.id]))}`)}">Open in the viewer</a>
      (the transcript around each source, the version timeline)</p>
    <p>${html(m.text)}</p>
    <p class="meta">${html(m.status)} · version ${m.version} · observed ${html(day(m.observedAt ?? m.createdAt))} · last seen ${html(day(m.lastSeen))}${m.confirmedAt ? ` · confirmed by ${html(m.confirmedBy ?? "")}` : ""}${files}</p>${m.stale ? `<p class="meta">⚠ may be stale: ${html(m.stale)}</p>` : ""}${cues}
    <h2>Sources (${found.sources.length})</h2>${sources}
    </body></html>`;
}

export class ProvenancePanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private shown: number | undefined;

  constructor(private readonly server: Server) {}

  /** Show a memory's provenance, in the existing panel when there is one. */
  async show(id: number): Promise<void> {
    const found = await this.server.request<Provenance>(Methods.provenance, { id });
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel('loreline.provenance', 'Loreline', vscode.ViewColumn.Active,
        { enableCommandUris: [OPEN_SOURCE, OPEN_IN_VIEWER], enableFindWidget: true, localResourceRoots: [] });
      this.panel.onDidDispose(() => {
        this.panel = undefined;
        this.shown = undefined;
      });
    }
    this.shown = id;
    this.panel.title = `Loreline: ${found.memory.kind} #${id}`;
    this.panel.webview.html = renderProvenance(found);
    this.panel.reveal(undefined, false);
  }

  /** Re-render the memory shown (the store changed); a forgotten one stays as it was. */
  async refresh(): Promise<void> {
    if (this.panel && this.shown !== undefined) {
      try {
        this.panel.webview.html = renderProvenance(await this.server.request<Provenance>(Methods.provenance, { id: this.shown }));
      } catch {
        // the memory may be gone; keep what is shown
      }
    }
  }

  dispose(): void {
    this.panel?.dispose();
  }
}

/** Open a session file with its line selected. */
export async function openSource(sessionUri: string, line: number): Promise<void> {
  const position = new vscode.Position(Math.max(0, line - 1), 0);
  await vscode.window.showTextDocument(vscode.Uri.parse(sessionUri), {
    selection: new vscode.Range(position, position), preview: true,
  });
}

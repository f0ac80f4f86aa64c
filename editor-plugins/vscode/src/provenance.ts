/**
 * The provenance view: a read-only markdown document `loreline:/memory-<id>.md` rendered in the
 * markdown preview. It shows the memory, then each source with its redacted excerpt and a link
 * that opens the session file at the source's first line.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { day, Methods, type Provenance, span } from './protocol';
import type { Server } from './server';

export const SCHEME = 'loreline';

export function provenanceUri(id: number): vscode.Uri {
  return vscode.Uri.from({ scheme: SCHEME, path: `/memory-${id}.md` });
}

/** A code fence longer than any run of backticks in `text`. */
function fenced(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${text}\n${fence}`;
}

function escape(text: string): string {
  return text.replace(/([\\`*_{}[\]()#+\-.!<>|])/g, '\\$1');
}

export function renderProvenance(found: Provenance): string {
  const m = found.memory;
  const lines = [
    `# ${m.kind} #${m.id}`, '', escape(m.text), '',
    `*${m.status} · version ${m.version} · observed ${day(m.observedAt ?? m.createdAt)}*` +
      (m.files.length ? ` · files: ${m.files.map((f) => `\`${f}\``).join(', ')}` : ''),
    '', `## Sources (${found.sources.length})`,
  ];
  for (const s of found.sources) {
    const target = vscode.Uri.parse(s.sessionUri).with({ fragment: `L${s.lineStart}` }).toString();
    lines.push('', `### ${s.tool} · session \`${s.sessionId.slice(0, 8)}\` · ${day(s.observedAt)} · lines ${span(s)}`, '',
      `[Open ${escape(path.basename(s.sessionPath))} at line ${s.lineStart}](${target})`, '', fenced(s.excerpt));
  }
  return lines.join('\n') + '\n';
}

export class ProvenanceDocuments implements vscode.TextDocumentContentProvider {
  constructor(private readonly server: Server) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const id = Number(/^\/memory-(\d+)\.md$/.exec(uri.path)?.[1]);
    if (!id) {
      return `Not a Loreline memory: ${uri.toString()}\n`;
    }
    return renderProvenance(await this.server.request<Provenance>(Methods.provenance, { id }));
  }
}

/** Open a memory's provenance in the markdown preview. */
export async function showProvenance(id: number): Promise<void> {
  await vscode.commands.executeCommand('markdown.showPreview', provenanceUri(id));
}

/** Open a session file with its line selected. */
export async function openSource(sessionUri: string, line: number): Promise<void> {
  const position = new vscode.Position(Math.max(0, line - 1), 0);
  await vscode.window.showTextDocument(vscode.Uri.parse(sessionUri), {
    selection: new vscode.Range(position, position), preview: true,
  });
}

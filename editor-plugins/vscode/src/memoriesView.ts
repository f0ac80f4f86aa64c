/**
 * The "Memories" tree in the Loreline activity-bar container: the current workspace folder's
 * memories grouped by kind (pending conflicts first, when there are any, then the project brief
 * each assistant session starts with, when it has one: its lines, each expanding into the memories
 * it rests on). A memory expands into its sources; clicking a memory opens its provenance,
 * clicking a source opens the session file at its line. Tooltips carry the provenance, fetched
 * when the item is hovered.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { log, messageOf } from './logging';
import {
  type Brief, briefLabel, type BriefLine, briefLineDescription, type Conflict, count, day, type Inbox, KINDS, type Kind,
  type MemoriesPage, type Memory, Methods, type Provenance, type Source, span,
} from './protocol';
import type { Server } from './server';

export type Node =
  | { type: 'kind'; kind: Kind; items: Memory[] }
  | { type: 'memory'; memory: Memory; under?: string }
  | { type: 'source'; memory: Memory; source: Source; under?: string }
  | { type: 'inbox'; inbox: Inbox }
  | { type: 'brief'; brief: Brief }
  | { type: 'briefLine'; line: BriefLine }
  | { type: 'held'; memory: Memory }
  | { type: 'conflict'; conflict: Conflict };

const KIND_ICONS: Record<Kind, string> = {
  preference: 'heart', decision: 'law', fact: 'info', procedure: 'list-ordered', episode: 'history',
};

/** The folder whose project is shown: the active editor's workspace folder, else the first one. */
export function currentFolder(): string | undefined {
  const doc = vscode.window.activeTextEditor?.document;
  const folder = (doc && vscode.workspace.getWorkspaceFolder(doc.uri)) ?? vscode.workspace.workspaceFolders?.[0];
  return folder?.uri.fsPath;
}

/** Markdown that says where a memory came from (the tooltip). */
export function provenanceTooltip(found: Provenance): vscode.MarkdownString {
  const md = new vscode.MarkdownString();
  const m = found.memory;
  md.appendMarkdown(`**${m.kind}** · #${m.id} · ${seen(m)}\n\n`);
  md.appendText(m.text);
  if (m.stale) {
    md.appendMarkdown(`\n\n$(warning) *may be stale: `).appendText(m.stale).appendMarkdown('*');
    md.supportThemeIcons = true;
  }
  for (const s of found.sources) {
    md.appendMarkdown(`\n\n---\n\n*${s.tool} · session \`${s.sessionShort ?? s.sessionId.slice(0, 8)}\` · ${day(s.observedAt)} · `);
    md.appendMarkdown(`lines ${span(s)} of ${path.basename(s.sessionPath)}*\n\n`);
    md.appendCodeblock(s.excerpt, 'text');
  }
  return md;
}

export class MemoriesView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly view: vscode.TreeView<Node>;
  private shownFolder: string | undefined;
  /** the top-level labels last shown, for the self test */
  labels: string[] = [];
  /** the brief's lines last shown, each with the ids it cites, for the self test */
  briefLines: string[] = [];

  constructor(private readonly server: Server) {
    this.view = vscode.window.createTreeView('loreline.memories', { treeDataProvider: this, showCollapseAll: true });
  }

  refresh(): void {
    this.emitter.fire(undefined);
  }

  /** Refresh when the active editor moved to another workspace folder. */
  followEditor(): void {
    if (currentFolder() !== this.shownFolder) {
      this.refresh();
    }
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (!node) {
      return this.roots();
    }
    switch (node.type) {
      case 'kind':
        return node.items.map((memory) => ({ type: 'memory', memory }));
      case 'inbox':
        return [...node.inbox.held.map((memory): Node => ({ type: 'held', memory })),
          ...node.inbox.conflicts.map((conflict): Node => ({ type: 'conflict', conflict }))];
      case 'memory':
        return this.sources(node.memory, node.under);
      case 'brief':
        return node.brief.lines.map((line): Node => ({ type: 'briefLine', line }));
      case 'briefLine':
        // a memory shown twice (under its kind and under a brief line) needs an id of its own here
        return node.line.sources.map((memory): Node => ({ type: 'memory', memory, under: `brief:${node.line.number}` }));
      default:
        return [];
    }
  }

  private async sources(memory: Memory, under?: string): Promise<Node[]> {
    try {
      const found = await this.server.request<Provenance>(Methods.provenance, { id: memory.id });
      return found.sources.map((source) => ({ type: 'source', memory, source, under }));
    } catch (err) {
      log().warn(`provenance of #${memory.id}: ${messageOf(err)}`);
      return [];
    }
  }

  private async roots(): Promise<Node[]> {
    this.shownFolder = currentFolder();
    if (!(await this.server.ready())) {
      this.view.message = `The language server is not running: ${this.server.lastError ?? ''} (Loreline: Show Logs)`;
      return [];
    }
    try {
      const folder = this.shownFolder;
      const page = await this.server.request<MemoriesPage>(Methods.memories, { folder });
      const inbox = await this.server.request<Inbox>(Methods.inbox, { folder });
      const brief = await this.brief(folder);
      return this.show(page, inbox, brief);
    } catch (err) {
      this.view.message = `Could not list memories: ${messageOf(err)}`;
      return [];
    }
  }

  /** The project's brief, or null (none yet, or a server from before briefs). */
  private async brief(folder: string | undefined): Promise<Brief | null> {
    try {
      return await this.server.request<Brief | null>(Methods.brief, { folder });
    } catch (err) {
      log().warn(`brief: ${messageOf(err)}`);
      return null;
    }
  }

  private show(page: MemoriesPage, inbox: Inbox, brief: Brief | null): Node[] {
    this.view.description = path.basename(page.project);
    this.view.badge = page.total ? { value: page.total, tooltip: count(page.total, 'memory', 'memories') } : undefined;
    const more = page.total > page.items.length ? ` (showing ${page.items.length} of ${page.total})` : '';
    this.view.message = more ? `${page.project}${more}` : undefined;
    const waiting = inbox.held.length + inbox.conflicts.length;
    const nodes: Node[] = waiting ? [{ type: 'inbox', inbox }] : [];
    if (brief && brief.lines.length) {
      nodes.push({ type: 'brief', brief });
    }
    this.briefLines = (brief?.lines ?? []).map((l) => `${l.text} (${l.memories.map((id) => `#${id}`).join(', ')})`);
    for (const kind of KINDS) {
      const items = page.items.filter((m) => m.kind === kind);
      if (items.length) {
        nodes.push({ type: 'kind', kind, items });
      }
    }
    this.labels = nodes.map((n) => this.getTreeItem(n).label as string);
    return nodes;
  }

  getTreeItem(node: Node): vscode.TreeItem {
    switch (node.type) {
      case 'kind': {
        const item = new vscode.TreeItem(`${node.kind} (${node.items.length})`, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `kind:${node.kind}`;
        item.iconPath = new vscode.ThemeIcon(KIND_ICONS[node.kind]);
        return item;
      }
      case 'memory':
        return memoryItem(node.memory, node.under);
      case 'source':
        return sourceItem(node.memory, node.source, node.under);
      case 'inbox': {
        const item = new vscode.TreeItem(`Inbox (${node.inbox.held.length + node.inbox.conflicts.length})`,
          vscode.TreeItemCollapsibleState.Expanded);
        item.id = 'inbox';
        item.description = [node.inbox.held.length ? count(node.inbox.held.length, 'to review', 'to review') : '',
          node.inbox.conflicts.length ? count(node.inbox.conflicts.length, 'conflict', 'conflicts') : '']
          .filter(Boolean).join(' · ');
        item.iconPath = new vscode.ThemeIcon('inbox');
        return item;
      }
      case 'brief': {
        const item = new vscode.TreeItem(briefLabel(node.brief), vscode.TreeItemCollapsibleState.Collapsed);
        item.id = 'brief';
        item.description = `v${node.brief.version} · by ${node.brief.writer}${node.brief.stale ? ' · stale' : ''}`;
        item.tooltip = 'What each assistant session of this project starts with (the SessionStart hook gives it); '
          + 'each line expands into the memories it rests on.';
        item.iconPath = new vscode.ThemeIcon('book');
        return item;
      }
      case 'briefLine':
        return briefLineItem(node.line);
      case 'held':
        return heldItem(node.memory);
      case 'conflict':
        return conflictItem(node.conflict);
    }
  }

  async resolveTreeItem(item: vscode.TreeItem, node: Node): Promise<vscode.TreeItem> {
    if (node.type === 'memory' && !item.tooltip) {
      try {
        item.tooltip = provenanceTooltip(await this.server.request<Provenance>(Methods.provenance, { id: node.memory.id }));
      } catch (err) {
        item.tooltip = messageOf(err);
      }
    }
    return item;
  }

  dispose(): void {
    this.view.dispose();
    this.emitter.dispose();
  }
}

/** "confirmed 2026-11-30" or "seen 2026-11-02": when it was last said or confirmed. */
export function seen(m: Memory): string {
  const last = m.lastSeen ?? m.observedAt ?? m.createdAt;
  return `${m.confirmedAt && m.confirmedAt >= last ? 'confirmed' : 'seen'} ${day(last)}`;
}

function memoryItem(m: Memory, under?: string): vscode.TreeItem {
  const item = new vscode.TreeItem(m.text.replace(/\s+/g, ' '), vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `${under ? `${under}:` : ''}memory:${m.id}:${m.version}`;
  const stale = m.stale ? 'may be stale · ' : '';
  item.description = `${stale}#${m.id} · ${seen(m)} · ${count(m.sourceCount, 'source', 'sources')}`;
  item.contextValue = m.stale ? 'memory-stale' : 'memory';
  item.iconPath = m.stale ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'))
    : new vscode.ThemeIcon(m.pinned ? 'pinned' : 'note');
  item.command = { title: 'Show Provenance', command: 'loreline.showProvenance', arguments: [m.id] };
  return item;
}

function briefLineItem(line: BriefLine): vscode.TreeItem {
  const item = new vscode.TreeItem(line.text.replace(/\s+/g, ' '), vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `brief:${line.number}:${line.memories.join(',')}`;
  item.description = briefLineDescription(line);
  item.tooltip = `${line.title}\n${line.text}\n\nRests on ${line.memories.map((id) => `#${id}`).join(', ')} (written by ${line.by})`;
  item.contextValue = 'briefLine';
  item.iconPath = new vscode.ThemeIcon(line.pinned ? 'pinned' : 'quote');
  return item;
}

function heldItem(m: Memory): vscode.TreeItem {
  const item = new vscode.TreeItem(m.text.replace(/\s+/g, ' '), vscode.TreeItemCollapsibleState.None);
  item.id = `held:${m.id}`;
  item.description = `${m.kind} · #${m.id} · ${seen(m)} · ${m.holdReason ?? 'held for review'}`;
  item.contextValue = 'held';
  item.iconPath = new vscode.ThemeIcon('mail');
  item.command = { title: 'Show Provenance', command: 'loreline.showProvenance', arguments: [m.id] };
  return item;
}

function sourceItem(m: Memory, s: Source, under?: string): vscode.TreeItem {
  const item = new vscode.TreeItem(`${s.tool} · lines ${span(s)}`, vscode.TreeItemCollapsibleState.None);
  item.id = `${under ? `${under}:` : ''}source:${m.id}:${s.sessionId}:${s.lineStart}`;
  item.description = `${path.basename(s.sessionPath)} · ${day(s.observedAt)}`;
  item.tooltip = new vscode.MarkdownString().appendCodeblock(s.excerpt, 'text');
  item.iconPath = new vscode.ThemeIcon('go-to-file');
  item.command = { title: 'Open Session', command: 'loreline.openSource', arguments: [s.sessionUri, s.lineStart] };
  return item;
}

function conflictItem(c: Conflict): vscode.TreeItem {
  const item = new vscode.TreeItem(`#${c.existing.id} ↔ #${c.new.id}`, vscode.TreeItemCollapsibleState.None);
  item.id = `conflict:${c.id}`;
  item.description = c.reason ?? '';
  item.tooltip = `existing: ${c.existing.text}\nnew: ${c.new.text}`;
  item.contextValue = 'conflict';
  item.command = { title: 'Resolve Conflict', command: 'loreline.resolveConflict', arguments: [c.id] };
  return item;
}

/**
 * The palette and tree commands. Each one asks the server and shows the answer; a failure
 * becomes one error toast with "Show Logs" (see `guarded`). The API key typed into "Set API
 * Key" goes straight to the server, which keeps it in the OS keyring; it is never stored here.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { messageOf, showError, showLogs } from './logging';
import { currentFolder, type Node } from './memoriesView';
import {
  type Conflict, count, type ImportReport, importSummary, type Memory, Methods, type RecallResult, span,
} from './protocol';
import { openSource, type ProvenancePanel } from './provenance';
import type { Progress, Server } from './server';

// command arguments come untyped from VS Code (the palette, tree items, command links)
type Handler = (...args: any[]) => Promise<unknown>;

/** A command handler whose failures become an error toast with "Show Logs". */
function guarded(name: string, fn: Handler): Handler {
  return async (...args) => {
    try {
      return await fn(...args);
    } catch (err) {
      showError(`${name}: ${messageOf(err)}`);
      return undefined;
    }
  };
}

interface MemoryPick extends vscode.QuickPickItem { id: number }

function memoryPicks(items: { memory: Memory; detail?: string }[]): MemoryPick[] {
  return items.map(({ memory, detail }) => ({
    label: memory.text.replace(/\s+/g, ' '), description: `${memory.kind} · #${memory.id}`, detail, id: memory.id,
  }));
}

export function registerCommands(server: Server, provenance: ProvenancePanel, refresh: () => void): vscode.Disposable[] {
  const showProvenance = (id: number): Promise<void> => provenance.show(id);
  const commands: Record<string, Handler> = {
    'loreline.refresh': async () => refresh(),
    'loreline.showLogs': async () => showLogs(),
    'loreline.recall': () => recall(server, showProvenance),
    'loreline.showConflicts': () => showConflicts(server),
    'loreline.resolveConflict': (id?: number) => resolveConflict(server, id),
    'loreline.forgetMemory': (target?: Node | number) => forgetMemory(server, target),
    'loreline.confirmMemory': (target?: Node | number) => confirmMemory(server, target),
    'loreline.approveMemory': (target?: Node | number) => approveMemory(server, target, false),
    'loreline.editAndApproveMemory': (target?: Node | number) => approveMemory(server, target, true),
    'loreline.rejectMemory': (target?: Node | number) => rejectMemory(server, target),
    'loreline.importSessions': (options?: { paths?: string[] }) => importSessions(server, options),
    'loreline.setApiKey': () => setApiKey(server),
    'loreline.showProvenance': async (target?: Node | number) => {
      const id = memoryId(target) ?? (await askMemoryId());
      return id && showProvenance(id);
    },
    'loreline.openInViewer': async (target?: Node | number) => {
      const id = memoryId(target) ?? (await askMemoryId());
      return id && openInViewer(server, id);
    },
    'loreline.openSource': async (uri: unknown, line: unknown) => {
      if (typeof uri !== 'string' || !uri.startsWith('file:') || typeof line !== 'number') {
        throw new Error('expects a session file URI and a line number');
      }
      return openSource(uri, line);
    },
  };
  const fileMemories = server.onFileMemories((found) => void guarded('Show File Memories', async () => {
    const picked = await vscode.window.showQuickPick(memoryPicks(found.items.map((memory) => ({ memory }))), {
      title: `Loreline: ${count(found.items.length, 'memory', 'memories')} about ${path.basename(vscode.Uri.parse(found.uri).fsPath)}`,
    });
    return picked && showProvenance(picked.id);
  })());
  return [fileMemories,
    ...Object.entries(commands).map(([name, fn]) => vscode.commands.registerCommand(name, guarded(title(name), fn)))];
}

/** A memory's page in the local viewer (the server starts it on first use), in the browser. */
export async function openInViewer(server: Server, id: number): Promise<void> {
  const found = await server.request<{ url: string }>(Methods.viewer, { id });
  await vscode.env.openExternal(vscode.Uri.parse(found.url, true));
}

/** "loreline.setApiKey" → "Set API Key", as the palette shows it. */
function title(command: string): string {
  const words = command.replace(/^loreline\./, '').replace(/([A-Z])/g, ' $1');
  return words.charAt(0).toUpperCase() + words.slice(1).replace(/\bApi\b/, 'API');
}

function memoryId(target?: Node | number): number | undefined {
  if (typeof target === 'number') {
    return target;
  }
  return target?.type === 'memory' || target?.type === 'held' ? target.memory.id : undefined;
}

async function askMemoryId(): Promise<number | undefined> {
  const text = await vscode.window.showInputBox({
    title: 'Loreline: memory id', placeHolder: '12',
    validateInput: (value) => (/^#?\d+$/.test(value.trim()) ? undefined : 'a memory id, such as 12'),
  });
  return text ? Number(text.trim().replace(/^#/, '')) : undefined;
}

async function recall(server: Server, showProvenance: (id: number) => Promise<void>): Promise<void> {
  const query = await vscode.window.showInputBox({ title: 'Loreline: Recall', prompt: 'What do you want to remember?' });
  if (!query?.trim()) {
    return;
  }
  const found = await server.request<RecallResult>(Methods.recall, { query, folder: currentFolder() });
  if (!found.items.length) {
    void vscode.window.showInformationMessage(`Loreline: nothing recalled for “${query}”.`);
    return;
  }
  const picked = await vscode.window.showQuickPick(memoryPicks(found.items.map((hit) => ({
    memory: hit.memory,
    detail: hit.sources[0] && `${hit.sources[0].tool} · lines ${span(hit.sources[0])} · ${path.basename(hit.sources[0].sessionPath)}`,
  }))), { title: `Loreline: recall “${query}”`, matchOnDescription: true, matchOnDetail: true });
  if (picked) {
    await showProvenance(picked.id);
  }
}

interface ConflictPick extends vscode.QuickPickItem { conflict: Conflict }

async function pickConflict(server: Server, title: string): Promise<Conflict | undefined> {
  const found = await server.request<{ items: Conflict[] }>(Methods.conflicts, { folder: currentFolder() });
  if (!found.items.length) {
    void vscode.window.showInformationMessage('Loreline: no pending conflicts.');
    return undefined;
  }
  const picks: ConflictPick[] = found.items.map((c) => ({
    label: `#${c.id}: #${c.existing.id} ↔ #${c.new.id}`, description: c.reason ?? '',
    detail: `existing: ${c.existing.text} — new: ${c.new.text}`, conflict: c,
  }));
  return (await vscode.window.showQuickPick(picks, { title }))?.conflict;
}

async function showConflicts(server: Server): Promise<void> {
  const conflict = await pickConflict(server, 'Loreline: pending conflicts (pick one to resolve)');
  if (conflict) {
    await resolve(server, conflict);
  }
}

async function resolveConflict(server: Server, id?: number): Promise<void> {
  if (id === undefined) {
    return showConflicts(server);
  }
  const found = await server.request<{ items: Conflict[] }>(Methods.conflicts, { folder: currentFolder() });
  const conflict = found.items.find((c) => c.id === id);
  if (!conflict) {
    throw new Error(`conflict #${id} is not pending`);
  }
  await resolve(server, conflict);
}

async function resolve(server: Server, c: Conflict): Promise<void> {
  const choices = [
    { label: 'Keep the new memory', detail: c.new.text, params: { keep: 'new' } },
    { label: 'Keep the existing memory', detail: c.existing.text, params: { keep: 'existing' } },
    { label: 'Keep both', detail: 'they do not really contradict each other', params: { keep: 'both' } },
    { label: 'Merge into one text…', detail: 'write the memory that replaces both', params: { merge: '' } },
  ];
  const choice = await vscode.window.showQuickPick(choices, { title: `Loreline: resolve conflict #${c.id}` });
  if (!choice) {
    return;
  }
  let params: object = choice.params;
  if ('merge' in choice.params) {
    const merge = await vscode.window.showInputBox({ title: 'Loreline: merged memory', value: c.new.text });
    if (!merge?.trim()) {
      return;
    }
    params = { merge };
  }
  const resolved = await server.request<Conflict>(Methods.resolveConflict, { id: c.id, ...params });
  void vscode.window.showInformationMessage(`Loreline: conflict #${resolved.id} resolved (${resolved.resolution}).`);
}

async function approveMemory(server: Server, target: Node | number | undefined, edit: boolean): Promise<void> {
  const id = memoryId(target) ?? (await askMemoryId());
  if (!id) {
    return;
  }
  let text: string | undefined;
  if (edit) {
    const current = target && typeof target === 'object' && 'memory' in target ? target.memory.text : '';
    text = await vscode.window.showInputBox({ title: `Loreline: approve #${id} in your words`, value: current });
    if (text === undefined) {
      return;
    }
  }
  const memory = await server.request<Memory>(Methods.approve, text === undefined ? { id } : { id, text });
  void vscode.window.showInformationMessage(`Loreline: approved #${memory.id}; it is active now.`);
}

async function rejectMemory(server: Server, target?: Node | number): Promise<void> {
  const id = memoryId(target) ?? (await askMemoryId());
  if (!id) {
    return;
  }
  await server.request<{ forgotten: number[] }>(Methods.reject, { id });
  void vscode.window.showInformationMessage(`Loreline: rejected #${id}; no import brings it back.`);
}

async function confirmMemory(server: Server, target?: Node | number): Promise<void> {
  const id = memoryId(target) ?? (await askMemoryId());
  if (!id) {
    return;
  }
  const memory = await server.request<Memory>(Methods.confirm, { id });
  void vscode.window.showInformationMessage(`Loreline: confirmed #${memory.id}; it no longer may be stale.`);
}

async function forgetMemory(server: Server, target?: Node | number): Promise<void> {
  const id = memoryId(target) ?? (await askMemoryId());
  if (!id) {
    return;
  }
  const ok = await vscode.window.showWarningMessage(`Forget memory #${id} and its versions? No re-import brings it back.`,
    { modal: true }, 'Forget');
  if (ok !== 'Forget') {
    return;
  }
  const result = await server.request<{ forgotten: number[] }>(Methods.forget, { id });
  void vscode.window.showInformationMessage(`Loreline: forgot ${result.forgotten.map((n) => `#${n}`).join(', ')}.`);
}

async function chooseImport(): Promise<object | undefined> {
  const choices = [
    { label: 'Recent Claude Code sessions', detail: 'the last 14 days, newest 20 sessions', params: {} },
    { label: 'Recent sessions of every tool', detail: 'Claude Code, Codex CLI and Cursor', params: { scope: 'all' } },
    { label: 'Choose transcript files…', detail: 'JSONL session files', params: undefined },
  ];
  const choice = await vscode.window.showQuickPick(choices, { title: 'Loreline: import sessions' });
  if (!choice || choice.params) {
    return choice?.params;
  }
  const files = await vscode.window.showOpenDialog({ canSelectMany: true, filters: { Transcripts: ['jsonl'] } });
  return files?.length ? { paths: files.map((f) => f.fsPath) } : undefined;
}

async function importSessions(server: Server, options?: { paths?: string[] }): Promise<ImportReport | undefined> {
  const params = options ?? (await chooseImport());
  if (!params) {
    return undefined;
  }
  const token = `loreline-vscode-import-${Date.now()}`;
  const report = await vscode.window.withProgress({
    location: vscode.ProgressLocation.Notification, title: 'Loreline: importing sessions', cancellable: true,
  }, async (progress, cancel) => {
    let done = 0;
    const following = server.onProgress(token, (value: Progress) => {
      const percentage = 'percentage' in value ? value.percentage ?? done : done;
      progress.report({ message: value.message, increment: Math.max(0, percentage - done) });
      done = Math.max(done, percentage);
    });
    try {
      return await server.request<ImportReport>(Methods.import, { ...params, workDoneToken: token }, cancel);
    } finally {
      following.dispose();
    }
  });
  void vscode.window.showInformationMessage(`Loreline: ${importSummary(report)}`);
  return report;
}

async function setApiKey(server: Server): Promise<void> {
  const key = await vscode.window.showInputBox({
    title: 'Loreline: Anthropic API key', prompt: 'Stored in the OS keyring by the language server; never in settings.',
    password: true, ignoreFocusOut: true, placeHolder: 'sk-ant-…',
  });
  if (!key?.trim()) {
    return;
  }
  const stored = await server.request<{ backend: string }>(Methods.setApiKey, { key: key.trim() });
  void vscode.window.showInformationMessage(`Loreline: API key stored in the keyring (${stored.backend}).`);
}

/**
 * "Loreline: Self Test", for the end-to-end test only: registered when the extension host runs
 * with LORELINE_SELFTEST_FILE set. Inside the real host it asks VS Code's own provider pipeline
 * for the hover on a word and the code lenses of a file, and writes what came back (plus the
 * status item and the tree's top level) as JSON to that file.
 */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { MemoriesView } from './memoriesView';
import type { Server } from './server';
import type { StatusItem } from './status';

function hoverTexts(hovers: vscode.Hover[]): string[] {
  return hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value)));
}

async function hoverAt(doc: vscode.TextDocument, word: string): Promise<string[]> {
  const offset = doc.getText().indexOf(word);
  if (offset < 0) {
    return [`(no "${word}" in ${doc.uri.fsPath})`];
  }
  const position = doc.positionAt(offset + 1);
  for (let attempt = 0; attempt < 10; attempt++) {
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, position);
    const texts = hoverTexts(hovers ?? []);
    if (texts.some((t) => t.includes('Loreline'))) {
      return texts;
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  return [];
}

export function registerSelfTest(server: Server, status: StatusItem, tree: MemoriesView): vscode.Disposable[] {
  const out = process.env.LORELINE_SELFTEST_FILE;
  if (!out) {
    return [];
  }
  void vscode.commands.executeCommand('setContext', 'loreline.selfTestEnabled', true);
  return [vscode.commands.registerCommand('loreline.selfTest', async () => {
    const running = await server.ready();
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(process.env.LORELINE_SELFTEST_DOC ?? ''));
    await vscode.window.showTextDocument(doc);
    const hover = running ? await hoverAt(doc, process.env.LORELINE_SELFTEST_WORD ?? 'pnpm') : [];
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri);
    await status.refresh();
    const result = {
      state: server.state, hover, lenses: (lenses ?? []).map((l) => l.command?.title ?? ''),
      status: status.text, tree: tree.labels, brief: tree.briefLines,
    };
    fs.writeFileSync(`${out}.tmp`, JSON.stringify(result, null, 2));
    fs.renameSync(`${out}.tmp`, out);
  })];
}

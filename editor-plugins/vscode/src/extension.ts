/**
 * Loreline for VS Code: a thin client of `loreline lsp` (docs/protocol.md). This file only
 * activates and deactivates; each concern has its module: server.ts (the language client),
 * settings.ts, status.ts (the language status item), logging.ts (the output channel),
 * memoriesView.ts (the tree), provenance.ts (the provenance panel) and commands.ts.
 */
import * as vscode from 'vscode';
import { registerCommands } from './commands';
import { createLog } from './logging';
import { currentFolder, MemoriesView } from './memoriesView';
import { ProvenancePanel } from './provenance';
import { Server } from './server';
import { affectsServer } from './settings';
import { registerSelfTest } from './selfTest';
import { StatusItem } from './status';

let server: Server | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const log = createLog();
  server = new Server();
  const tree = new MemoriesView(server);
  const status = new StatusItem(server, currentFolder);
  const provenance = new ProvenancePanel(server);
  const refresh = (): void => {
    tree.refresh();
    void provenance.refresh();
    void status.refresh();
  };
  let pending: NodeJS.Timeout | undefined;
  const refreshSoon = (): void => {
    clearTimeout(pending);
    pending = setTimeout(refresh, 150);
  };
  context.subscriptions.push(log, server, tree, status, provenance,
    ...registerCommands(server, provenance, refresh),
    ...registerSelfTest(server, status, tree),
    server.onDidChangeStore(refreshSoon),
    server.onDidChangeState((state) => (state === 'running' ? refresh() : status.showState(state))),
    vscode.window.onDidChangeActiveTextEditor(() => {
      tree.followEditor();
      void status.refresh();
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (affectsServer(event)) {
        void server?.restart();
      }
    }),
  );
  // not awaited: the tree and the status item wait for the server themselves
  void server.start();
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}

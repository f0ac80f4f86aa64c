/**
 * The extension's settings (`loreline.*`) and what they mean for the server: which command
 * starts it and which initialization options it gets. The API key is never a setting: it goes
 * to the OS keyring through `loreline/setApiKey`.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';

export interface InitializationOptions {
  hoverLimit: number;
  codeLens: boolean;
  backgroundWorker: boolean;
  pollSeconds: number;
}

export interface Settings {
  /** the `loreline` executable; empty when not set */
  path: string;
  /** a Python interpreter with Loreline installed; empty when not set */
  interpreter: string;
  initializationOptions: InitializationOptions;
}

export function readSettings(): Settings {
  const config = vscode.workspace.getConfiguration('loreline');
  return {
    path: expand(config.get<string>('path', '')),
    interpreter: expand(config.get<string>('interpreter', '')),
    initializationOptions: {
      hoverLimit: config.get<number>('hover.limit', 3),
      codeLens: config.get<boolean>('codeLens.enabled', true),
      backgroundWorker: config.get<boolean>('backgroundWorker', true),
      pollSeconds: config.get<number>('pollSeconds', 2),
    },
  };
}

/** `loreline.path` → `<path> lsp`; else `loreline.interpreter` → `<python> -m loreline_lsp`; else `loreline lsp`. */
export function serverCommand(settings: Settings): { command: string; args: string[] } {
  if (settings.path) {
    return { command: settings.path, args: ['lsp'] };
  }
  if (settings.interpreter) {
    return { command: settings.interpreter, args: ['-m', 'loreline_lsp'] };
  }
  return { command: 'loreline', args: ['lsp'] };
}

/** `~` and `${workspaceFolder}` in a path setting. */
function expand(value: string): string {
  let out = value.trim();
  if (out === '~' || out.startsWith('~/')) {
    out = path.join(os.homedir(), out.slice(1));
  }
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  return folder ? out.replace(/\$\{workspaceFolder\}/g, folder) : out;
}

/** Whether a configuration change means the server must restart. */
export function affectsServer(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration('loreline');
}

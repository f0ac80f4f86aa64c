/**
 * One output channel, "Loreline", shared by the extension and the language client (whose
 * server stderr lands there too). Every error toast offers "Show Logs", which opens it.
 */
import * as vscode from 'vscode';

const SHOW_LOGS = 'Show Logs';
let channel: vscode.LogOutputChannel | undefined;

export function createLog(): vscode.LogOutputChannel {
  channel = vscode.window.createOutputChannel('Loreline', { log: true });
  return channel;
}

export function log(): vscode.LogOutputChannel {
  return channel ?? createLog();
}

export function showLogs(): void {
  log().show(true);
}

/** The one-line message of anything thrown (language-client errors carry `message`). */
export function messageOf(err: unknown): string {
  if (err instanceof Error || (typeof err === 'object' && err !== null && 'message' in err)) {
    return String((err as { message: unknown }).message).split('\n')[0];
  }
  return String(err);
}

/** Log an error and show it as a toast with a "Show Logs" button (without waiting for the user). */
export function showError(message: string): void {
  log().error(message);
  void vscode.window.showErrorMessage(`Loreline: ${message}`, SHOW_LOGS).then((choice) => {
    if (choice === SHOW_LOGS) {
      showLogs();
    }
  });
}

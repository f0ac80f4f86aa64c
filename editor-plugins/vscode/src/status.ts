/**
 * The language status item: the current project's memory and pending-conflict counts and the distiller backend
 * while the server runs; busy while it starts; an error (clicking shows the logs) when it
 * failed. Shown next to the language indicator for any file.
 */
import * as vscode from 'vscode';
import { log, messageOf } from './logging';
import { Methods, type Status, statusSummary } from './protocol';
import type { Server, ServerState } from './server';

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.languages.createLanguageStatusItem('loreline.status', { scheme: 'file' });
  /** the last text shown, for the self test */
  text = '';

  constructor(private readonly server: Server, private readonly folder: () => string | undefined) {
    this.item.name = 'Loreline';
    this.showState(server.state);
  }

  showState(state: ServerState): void {
    this.item.busy = state === 'starting';
    if (state === 'failed' || state === 'stopped') {
      this.set('$(error) Loreline', this.server.lastError ?? 'the language server is not running',
        vscode.LanguageStatusSeverity.Error, { title: 'Show Logs', command: 'loreline.showLogs' });
    } else if (state === 'starting') {
      this.set('Loreline', 'starting the language server…', vscode.LanguageStatusSeverity.Information);
    }
  }

  /** Ask the server for the numbers and show them. */
  async refresh(): Promise<void> {
    if (this.server.state !== 'running') {
      return this.showState(this.server.state);
    }
    const folder = this.folder();
    try {
      const status = await this.server.request<Status>(Methods.status, { folder });
      this.set(`$(book) ${statusSummary(status)}`, `distiller: ${status.backend}`,
        vscode.LanguageStatusSeverity.Information, { title: 'Refresh', command: 'loreline.refresh' });
    } catch (err) {
      log().warn(`status: ${messageOf(err)}`);
      this.set('$(warning) Loreline', messageOf(err), vscode.LanguageStatusSeverity.Warning,
        { title: 'Show Logs', command: 'loreline.showLogs' });
    }
  }

  private set(text: string, detail: string, severity: vscode.LanguageStatusSeverity, command?: vscode.Command): void {
    this.text = `${text} (${detail})`;
    this.item.text = text;
    this.item.detail = detail;
    this.item.severity = severity;
    this.item.command = command;
  }

  dispose(): void {
    this.item.dispose();
  }
}

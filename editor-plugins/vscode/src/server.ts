/**
 * The language server's lifecycle: spawn `loreline lsp` (see settings.ts for which command),
 * pass the initialization options, and expose requests and the server's notifications.
 *
 * Invariants: at most one client runs; `request()` fails fast with a clear message when the
 * server is not running; a start failure leaves the state `failed` (the status item shows it)
 * and shows one error toast with "Show Logs".
 */
import * as vscode from 'vscode';
import {
  LanguageClient,
  RevealOutputChannelOn,
  State,
  TransportKind,
  WorkDoneProgress,
  type WorkDoneProgressBegin,
  type WorkDoneProgressEnd,
  type WorkDoneProgressReport,
} from 'vscode-languageclient/node';
import { findExecutable, needsShell } from './executable';
import { log, messageOf, showError } from './logging';
import { DidChange, type FileMemories, ShowFileMemories } from './protocol';
import { readSettings, serverCommand } from './settings';

export type ServerState = 'stopped' | 'starting' | 'running' | 'failed';
export type Progress = WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd;

export class Server implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  private readonly storeEmitter = new vscode.EventEmitter<string>();
  private readonly fileMemoriesEmitter = new vscode.EventEmitter<FileMemories>();
  /** fires with the new state */
  readonly onDidChangeState = this.stateEmitter.event;
  /** fires with `loreline/didChange`'s reason */
  readonly onDidChangeStore = this.storeEmitter.event;
  /** fires when a code lens ran `loreline.showFileMemories` */
  readonly onFileMemories = this.fileMemoriesEmitter.event;
  state: ServerState = 'stopped';
  lastError: string | undefined;

  async start(): Promise<void> {
    const { command, args } = serverCommand(readSettings());
    const found = findExecutable(command);
    if (!found) {
      return this.fail(`\`${command}\` was not found: install Loreline, or set loreline.path or loreline.interpreter`);
    }
    log().info(`starting ${found} ${args.join(' ')}`);
    this.setState('starting');
    const client = this.createClient(found, args);
    this.client = client;
    try {
      await client.start();
    } catch (err) {
      this.client = undefined;
      return this.fail(`the language server (${found} ${args.join(' ')}) did not start: ${messageOf(err)}`);
    }
    this.setState('running');
  }

  private createClient(command: string, args: string[]): LanguageClient {
    // a .cmd/.bat goes through the shell, its path quoted (it may hold spaces)
    const shell = needsShell(command);
    const run = { command: shell ? `"${command}"` : command, args, transport: TransportKind.stdio, options: { shell } };
    const client = new LanguageClient('loreline', 'Loreline', run, {
      documentSelector: [{ scheme: 'file' }],
      initializationOptions: readSettings().initializationOptions,
      outputChannel: log(),
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      middleware: {
        executeCommand: async (name, commandArgs, next) => {
          const result: unknown = await next(name, commandArgs);
          if (name === ShowFileMemories && result) {
            this.fileMemoriesEmitter.fire(result as FileMemories);
          }
          return result;
        },
      },
    });
    client.onNotification(DidChange, (params: { reason?: string } | undefined) => {
      this.storeEmitter.fire(params?.reason ?? 'store');
    });
    client.onDidChangeState((event) => {
      if (this.client !== client) {
        return;
      }
      if (event.newState === State.Stopped && this.state === 'running') {
        this.fail('the language server stopped');
      } else if (event.newState === State.Running && this.state === 'failed') {
        this.setState('running'); // the client restarted it
      }
    });
    return client;
  }

  private fail(message: string): void {
    this.lastError = message;
    this.setState('failed');
    showError(message);
  }

  private setState(state: ServerState): void {
    if (state !== 'failed') {
      this.lastError = undefined;
    }
    this.state = state;
    this.stateEmitter.fire(state);
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.stop(5000);
      } catch (err) {
        log().warn(`stopping the language server: ${messageOf(err)}`);
      }
    }
    this.setState('stopped');
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Resolves once the server runs (or right away when it already does); false if it failed. */
  ready(timeoutMs = 30000): Promise<boolean> {
    if (this.state === 'running' || this.state === 'failed') {
      return Promise.resolve(this.state === 'running');
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(false), timeoutMs);
      const listener = this.onDidChangeState((state) => {
        if (state === 'running' || state === 'failed') {
          done(state === 'running');
        }
      });
      const done = (ok: boolean): void => {
        clearTimeout(timer);
        listener.dispose();
        resolve(ok);
      };
    });
  }

  async request<R>(method: string, params: object, token?: vscode.CancellationToken): Promise<R> {
    if (!this.client || this.state !== 'running') {
      throw new Error(this.lastError ?? 'the language server is not running');
    }
    // an explicit `undefined` token would be sent as a second, positional parameter
    return token ? this.client.sendRequest<R>(method, params, token) : this.client.sendRequest<R>(method, params);
  }

  /** Follow `$/progress` for a work-done token the client made up. */
  onProgress(token: string, handler: (value: Progress) => void): vscode.Disposable {
    if (!this.client) {
      return new vscode.Disposable(() => undefined);
    }
    return this.client.onProgress(WorkDoneProgress.type, token, handler);
  }

  dispose(): void {
    void this.stop();
    this.stateEmitter.dispose();
    this.storeEmitter.dispose();
    this.fileMemoriesEmitter.dispose();
  }
}

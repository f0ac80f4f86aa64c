/**
 * Finding the server's executable the way a shell would: along PATH and, on Windows, with each
 * extension in PATHEXT (`loreline` is `loreline.exe` from pip, `loreline.cmd`/`.bat` from some
 * wrappers). Kept free of `vscode` so `node --test` checks it directly.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface Host {
  env: Record<string, string | undefined>;
  platform: string;
}

const DEFAULT_PATHEXT = '.COM;.EXE;.BAT;.CMD';
const thisHost = (): Host => ({ env: process.env, platform: process.platform });

/** An environment variable by name, ignoring case on Windows (`Path` vs `PATH`). */
function variable(host: Host, name: string): string | undefined {
  if (host.platform !== 'win32') {
    return host.env[name];
  }
  const key = Object.keys(host.env).find((k) => k.toUpperCase() === name);
  return key === undefined ? undefined : host.env[key];
}

/** Every file the command may be, in the order a shell tries them. */
export function candidates(command: string, host: Host = thisHost()): string[] {
  const windows = host.platform === 'win32';
  const p = windows ? path.win32 : path.posix;
  const hasDir = command.includes('/') || (windows && command.includes('\\'));
  const bases = hasDir
    ? [p.resolve(command)]
    : (variable(host, 'PATH') ?? '').split(p.delimiter).filter(Boolean).map((dir) => p.join(dir, command));
  if (!windows) {
    return bases;
  }
  const extensions = (variable(host, 'PATHEXT') || DEFAULT_PATHEXT).split(';').filter(Boolean);
  const given = p.extname(command).toUpperCase();
  if (given && extensions.some((ext) => ext.toUpperCase() === given)) {
    return bases;
  }
  return bases.flatMap((base) => extensions.map((ext) => base + ext.toLowerCase()));
}

/** The absolute path of an executable command, or undefined when there is none. */
export function findExecutable(command: string, host: Host = thisHost()): string | undefined {
  return candidates(command, host).find((file) => {
    try {
      if (host.platform !== 'win32') {
        fs.accessSync(file, fs.constants.X_OK);
      }
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  });
}

/** Windows runs `.cmd`/`.bat` files only through the shell (Node refuses to spawn them). */
export function needsShell(file: string, platform: string = process.platform): boolean {
  return platform === 'win32' && /\.(cmd|bat)$/i.test(file);
}

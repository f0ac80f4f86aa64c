// @ts-check
// How the extension finds `loreline`: along PATH, and on Windows with PATHEXT's extensions
// (pure candidates for a Windows host; real files for this one). Run by
// tests/test_vscode_client.py after `tsc` (it reads out/executable.js).
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { candidates, findExecutable, needsShell } = require('../out/executable.js');

const windows = (env) => ({ env, platform: 'win32' });

test('on Windows each PATH folder is tried with each PATHEXT extension, in order', () => {
  const host = windows({ Path: 'C:\\Python\\Scripts;D:\\tools', PATHEXT: '.EXE;.CMD' });
  assert.deepEqual(candidates('loreline', host), [
    'C:\\Python\\Scripts\\loreline.exe', 'C:\\Python\\Scripts\\loreline.cmd',
    'D:\\tools\\loreline.exe', 'D:\\tools\\loreline.cmd',
  ]);
});

test('on Windows a command that already has a PATHEXT extension is taken as it is', () => {
  const host = windows({ PATH: 'C:\\bin', PATHEXT: '.COM;.EXE;.BAT;.CMD' });
  assert.deepEqual(candidates('loreline.cmd', host), ['C:\\bin\\loreline.cmd']);
  assert.deepEqual(candidates('C:\\Python\\python.exe', host), ['C:\\Python\\python.exe']);
});

test('on Windows without PATHEXT the usual extensions are used', () => {
  const found = candidates('loreline', windows({ PATH: 'C:\\bin' }));
  assert.deepEqual(found, ['C:\\bin\\loreline.com', 'C:\\bin\\loreline.exe', 'C:\\bin\\loreline.bat',
    'C:\\bin\\loreline.cmd']);
});

test('only .cmd and .bat need the shell, and only on Windows', () => {
  assert.equal(needsShell('C:\\bin\\loreline.CMD', 'win32'), true);
  assert.equal(needsShell('C:\\bin\\loreline.bat', 'win32'), true);
  assert.equal(needsShell('C:\\bin\\loreline.exe', 'win32'), false);
  assert.equal(needsShell('/usr/bin/loreline.cmd', 'linux'), false);
});

test('on this host an executable file on PATH is found, a plain file and a folder are not', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'loreline-exe-'));
  const [plain, dir, good] = ['a', 'b', 'c'].map((name) => path.join(root, name));
  [plain, dir, good].forEach((folder) => fs.mkdirSync(folder));
  fs.writeFileSync(path.join(plain, 'loreline'), '#!/bin/sh\n', { mode: 0o644 });
  fs.mkdirSync(path.join(dir, 'loreline'));
  fs.writeFileSync(path.join(good, 'loreline'), '#!/bin/sh\n', { mode: 0o755 });
  const host = { env: { PATH: [plain, dir, good].join(path.delimiter) }, platform: 'linux' };
  assert.equal(findExecutable('loreline', host), path.join(good, 'loreline'));
  assert.equal(findExecutable('nothing-here', host), undefined);
  fs.rmSync(root, { recursive: true, force: true });
});

// @ts-check
// The extension's side of the contract, spoken to the real `loreline lsp` over stdio with
// vscode-jsonrpc (the library under vscode-languageclient): the methods it calls exist in
// docs/protocol.md, the initialization options it sends are accepted, and the results have the
// fields its tree, status item, provenance view and import progress read.
//
// Run by tests/test_vscode_client.py after `tsc` (it reads out/protocol.js). Environment:
// LORELINE_SERVER (the loreline executable), LORELINE_HOME (a store filled by a real import),
// LORELINE_TEST_REPO (the git repository its sessions worked in), LORELINE_TEST_EXTRA (a session
// not imported yet).
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const cp = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const rpc = require('vscode-jsonrpc/node');
const protocol = require('../out/protocol.js');

const REPO = process.env.LORELINE_TEST_REPO ?? '';
const APP = path.join(REPO, 'src', 'app.py');
const DOC = path.resolve(__dirname, '..', '..', '..', 'docs', 'protocol.md');
// what settings.ts sends with the default settings
const INIT_OPTIONS = { hoverLimit: 3, codeLens: true, backgroundWorker: false, pollSeconds: 0.2 };

/** @type {cp.ChildProcess} */
let server;
/** @type {rpc.MessageConnection} */
let conn;
/** @type {{method: string, params: any}[]} */
const received = [];

function until(what, predicate, ms = 10000) {
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      const value = predicate();
      if (value) return resolve(value);
      if (Date.now() - start > ms) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 20);
    };
    tick();
  });
}

before(async () => {
  assert.ok(REPO && process.env.LORELINE_SERVER && process.env.LORELINE_HOME, 'run through tests/test_vscode_client.py');
  server = cp.spawn(process.env.LORELINE_SERVER ?? 'loreline', ['lsp'], { stdio: ['pipe', 'pipe', 'inherit'] });
  conn = rpc.createMessageConnection(new rpc.StreamMessageReader(server.stdout), new rpc.StreamMessageWriter(server.stdin));
  conn.onNotification((method, params) => received.push({ method, params }));
  conn.onRequest('window/workDoneProgress/create', () => null);
  conn.listen();
  const init = await conn.sendRequest('initialize', {
    processId: process.pid, rootUri: null, initializationOptions: INIT_OPTIONS,
    capabilities: { window: { workDoneProgress: true } },
    workspaceFolders: [{ uri: pathToFileURL(REPO).href, name: 'repo' }],
  });
  assert.ok(init.capabilities.hoverProvider && init.capabilities.codeLensProvider);
  assert.deepEqual([...init.capabilities.executeCommandProvider.commands].sort(),
    [...protocol.StaleCommands, protocol.ShowFileMemories].sort());
  await conn.sendNotification('initialized', {});
  await conn.sendNotification('textDocument/didOpen', {
    textDocument: { uri: pathToFileURL(APP).href, languageId: 'python', version: 1, text: fs.readFileSync(APP, 'utf8') },
  });
});

after(async () => {
  await conn.sendRequest('shutdown');
  await conn.sendNotification('exit');
  conn.dispose();
  await new Promise((resolve) => {
    if (server.exitCode !== null) return resolve(undefined);
    server.on('exit', resolve);
    setTimeout(() => server.kill(), 3000);
  });
});

test('every method the extension calls is in docs/protocol.md', () => {
  const documented = new Set([...fs.readFileSync(DOC, 'utf8').matchAll(/^### `([^`]+)`/gm)].map((m) => m[1]));
  for (const method of [...Object.values(protocol.Methods), protocol.DidChange]) {
    assert.ok(documented.has(method), `${method} is not documented`);
  }
});

test('the initialization options the extension sends are accepted', () => {
  const complaints = received.filter((n) => n.method === 'window/showMessage');
  assert.deepEqual(complaints, []);
});

test('memories: the fields the tree reads', async () => {
  const page = await conn.sendRequest(protocol.Methods.memories, { folder: REPO });
  assert.equal(page.project, REPO);
  assert.equal(page.total, 3);
  assert.deepEqual(page.items.map((m) => m.kind).sort(), ['decision', 'fact', 'preference']);
  for (const m of page.items) {
    assert.ok(protocol.KINDS.includes(m.kind));
    assert.equal(typeof m.id, 'number');
    assert.equal(m.sourceCount, 1);
    assert.ok(m.createdAt && m.text);
  }
});

test('provenance: the source the provenance view links to', async () => {
  const page = await conn.sendRequest(protocol.Methods.memories, { folder: REPO, kind: 'decision' });
  const found = await conn.sendRequest(protocol.Methods.provenance, { id: page.items[0].id });
  const [source] = found.sources;
  assert.equal(source.tool, 'claude-code');
  assert.equal(protocol.span(source), '5');
  assert.match(source.excerpt, /advisory locks/);
  assert.ok(source.sessionUri.startsWith('file://') && source.sessionUri.endsWith('s0.jsonl'));
  assert.equal(fs.readFileSync(source.sessionPath, 'utf8').split('\n')[source.lineStart - 1].includes('advisory locks'), true);
});

test('viewer: a loopback address of the memory\'s page that answers', async () => {
  const page = await conn.sendRequest(protocol.Methods.memories, { folder: REPO, kind: 'decision' });
  const id = page.items[0].id;
  const found = await conn.sendRequest(protocol.Methods.viewer, { id });
  const url = new URL(found.url);
  assert.equal(url.hostname, '127.0.0.1');
  assert.equal(url.pathname, `/m/${id}`);
  const answer = await fetch(found.url, { redirect: 'manual' });
  assert.equal(answer.status, 303);
  const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0];
  const shown = await fetch(`${url.origin}/m/${id}`, { headers: { cookie } });
  assert.equal(shown.status, 200);
  const html = await shown.text();
  assert.ok(html.includes(`Memory #${id}`) && html.includes('advisory locks'));
});

test('recall: ranked hits with sources', async () => {
  const found = await conn.sendRequest(protocol.Methods.recall, { query: 'advisory locks billing', folder: REPO });
  assert.match(found.items[0].memory.text, /advisory locks/);
  assert.equal(found.items[0].sources[0].lineStart, 5);
});

test('hover and code lens on a file the sessions read', async () => {
  const uri = pathToFileURL(APP).href;
  const hover = await conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 21 } });
  assert.match(hover.contents.value, /In this repo we use pnpm, never npm\./);
  const lenses = await conn.sendRequest('textDocument/codeLens', { textDocument: { uri } });
  assert.equal(lenses.length, 1);
  assert.equal(lenses[0].command.title, 'Loreline: 2 memories about this file');
  const shown = await conn.sendRequest('workspace/executeCommand', lenses[0].command);
  assert.equal(shown.uri, uri);
  assert.deepEqual(shown.items.map((m) => m.kind).sort(), ['decision', 'preference']);
});

test('status: the fields the status item reads', async () => {
  const status = await conn.sendRequest(protocol.Methods.status, { folder: REPO });
  assert.equal(status.project, REPO);
  assert.equal(status.memories.active, 3);
  assert.equal(status.pendingConflicts, 0);
  assert.deepEqual(status.projectCounts, { active: 3, superseded: 0, forgotten: 0, pendingConflicts: 0, held: 0 });
  assert.equal(protocol.statusSummary(status), '3 memories');
  assert.match(status.backend, /rules/);
  assert.deepEqual((await conn.sendRequest(protocol.Methods.conflicts, { folder: REPO })).items, []);
});

test('import with the extension\'s own work-done token reports progress, then didChange', async () => {
  const token = 'loreline-vscode-import-test';
  const kinds = [];
  // vscode-jsonrpc hands `$/progress` to progress handlers, as vscode-languageclient's onProgress does
  const following = conn.onProgress(new rpc.ProgressType(), token, (value) => kinds.push(value.kind));
  const report = await conn.sendRequest(protocol.Methods.import, { paths: [process.env.LORELINE_TEST_EXTRA], workDoneToken: token });
  following.dispose();
  assert.deepEqual([report.sessions.imported, report.added, report.sessions.failed.length], [1, 1, 0]);
  assert.deepEqual([report.sessions.deferred, report.versioned, report.conflicts], [[], 0, 0]);
  assert.match(protocol.importSummary(report), /^1 session imported \(0 unchanged\): 1 added, \d+ merged · distiller rules/);
  assert.equal(kinds[0], 'begin');
  assert.equal(kinds.at(-1), 'end');
  assert.ok(kinds.includes('report'));
  await until('loreline/didChange', () => received.find((n) => n.method === protocol.DidChange));
  assert.equal((await conn.sendRequest(protocol.Methods.memories, { folder: REPO })).total, 4);
});

test('brief: the import wrote it; each line carries the memories it rests on', async () => {
  const brief = await conn.sendRequest(protocol.Methods.brief, { folder: REPO });
  assert.ok(brief, 'the import above writes the project brief');
  assert.equal(brief.project, REPO);
  assert.equal(brief.writer, 'rules');
  assert.equal(brief.lines.length, 4);
  assert.equal(protocol.briefLabel(brief), 'Brief · 4 lines');
  for (const line of brief.lines) {
    assert.deepEqual(line.sources.map((m) => m.id), line.memories);
    assert.ok(line.title && line.text && ['model', 'rules', 'user'].includes(line.by));
  }
  const pnpm = brief.lines.find((line) => line.text === 'In this repo we use pnpm, never npm.');
  assert.equal(protocol.briefLineDescription(pnpm), `Conventions and preferences · #${pnpm.memories[0]}`);
  assert.equal(pnpm.sources[0].source.lineStart, 1);
});

test('errors are one-line request failures and the server stays up', async () => {
  await assert.rejects(conn.sendRequest(protocol.Methods.provenance, { id: 999 }),
    (err) => err.code === -32803 && /no memory with id 999/.test(err.message));
  await assert.rejects(conn.sendRequest(protocol.Methods.forget, { id: 'seven' }), (err) => err.code === -32602);
  assert.equal((await conn.sendRequest(protocol.Methods.memories, { folder: REPO, limit: 1 })).items.length, 1);
});

test('the status item counts the current project\'s conflicts, not every project\'s', () => {
  const status = { pendingConflicts: 5, projectCounts: { active: 2, superseded: 0, forgotten: 0, pendingConflicts: 1 } };
  assert.equal(protocol.statusSummary(status), '2 memories · 1 conflict');
  status.projectCounts.pendingConflicts = 0;
  assert.equal(protocol.statusSummary(status), '2 memories');
});

test('an import summary names the sessions deferred to the next import', () => {
  const report = {
    sessions: { imported: 1, unchanged: 0, leftOut: [], failed: [], deferred: [{ path: '/s/a.jsonl', reason: 'rate limited (HTTP 429)' }] },
    added: 2, merged: 0, versioned: 1, conflicts: 1, cancelled: false, backend: 'anthropic',
  };
  assert.equal(protocol.importSummary(report), '1 session imported (0 unchanged, 1 deferred to the next import ' +
    '(rate limited (HTTP 429))): 2 added, 0 merged, 1 versioned, 1 conflict · distiller anthropic.');
});

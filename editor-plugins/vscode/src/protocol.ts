/**
 * The contract with `loreline lsp` (docs/protocol.md): method names and result shapes.
 * Every method this extension sends is listed in `Methods`; a test checks each one against
 * the protocol document.
 */

export const Methods = {
  memories: 'loreline/memories',
  provenance: 'loreline/provenance',
  viewer: 'loreline/viewer',
  recall: 'loreline/recall',
  brief: 'loreline/brief',
  conflicts: 'loreline/conflicts',
  resolveConflict: 'loreline/resolveConflict',
  forget: 'loreline/forget',
  import: 'loreline/import',
  status: 'loreline/status',
  setApiKey: 'loreline/setApiKey',
  confirm: 'loreline/confirm',
  inbox: 'loreline/inbox',
  approve: 'loreline/approve',
  reject: 'loreline/reject',
} as const;

/** Server → client: the store changed; refresh what is shown. */
export const DidChange = 'loreline/didChange';

/** The code lens command (`workspace/executeCommand`), answered with `FileMemories`. */
export const ShowFileMemories = 'loreline.showFileMemories';

/** The stale-memory diagnostic's quick fixes (`workspace/executeCommand`, run by the server). */
export const StaleCommands = ['loreline.stale.confirm', 'loreline.stale.forget', 'loreline.stale.provenance'] as const;

export type Kind = 'preference' | 'decision' | 'fact' | 'procedure' | 'episode';
export const KINDS: readonly Kind[] = ['preference', 'decision', 'fact', 'procedure', 'episode'];

export interface Memory {
  id: number;
  kind: Kind;
  text: string;
  status: 'active' | 'superseded' | 'forgotten' | 'held';
  version: number;
  pinned: boolean;
  project: string;
  scope: string;
  createdAt: string;
  observedAt: string | null;
  validUntil: string | null;
  extractor: string;
  rootId: number | null;
  replaces: number | null;
  files: string[];
  sourceCount: number;
  source: Source | null;
  /** why it may be stale (its files changed since it was made), or null */
  stale: string | null;
  confirmedAt: string | null;
  confirmedBy: string | null;
  /** when it was last said in a session or confirmed */
  lastSeen: string;
  /** why a held memory waits for review */
  holdReason: string | null;
  /** the questions it answers and its topic words, which recall finds it by (older servers: absent) */
  cues?: string[];
}

/** The review inbox: memories held for review and pending conflicts. */
export interface Inbox {
  held: Memory[];
  conflicts: Conflict[];
}

export interface Source {
  tool: string;
  sessionId: string;
  /** the shortest prefix no other session in the store shares (at least 8 characters) */
  sessionShort?: string;
  sessionPath: string;
  sessionUri: string;
  lineStart: number;
  lineEnd: number;
  excerpt: string;
  observedAt: string | null;
}

export interface Conflict {
  id: number;
  project: string;
  status: 'pending' | 'resolved';
  resolution: string | null;
  decidedBy: string | null;
  reason: string | null;
  createdAt: string;
  resolvedAt: string | null;
  existing: Memory;
  new: Memory;
}

export interface MemoriesPage {
  project: string;
  total: number;
  offset: number;
  items: Memory[];
}

export interface Provenance {
  memory: Memory;
  sources: Source[];
}

export interface RecallHit {
  memory: Memory;
  score: number;
  ftsRank: number | null;
  vecRank: number | null;
  sources: Source[];
}

export interface RecallResult {
  project: string;
  query: string;
  items: RecallHit[];
}

/** One line of the project brief: its text under a topic, and the memories it rests on. */
export interface BriefLine {
  number: number;
  topic: string;
  /** the topic's heading ("How to build, run, test and deploy") */
  title: string;
  text: string;
  by: 'model' | 'rules' | 'user';
  pinned: boolean;
  edited: boolean;
  memories: number[];
  sources: Memory[];
}

/** `loreline/brief`: what each assistant session of the project starts with (null: none yet). */
export interface Brief {
  project: string;
  version: number;
  /** the model that wrote it, or "rules" */
  writer: string;
  changedBy: string | null;
  createdAt: string;
  stale: boolean;
  dropped: number;
  /** lines not shown now: a memory they cite is no longer active */
  hidden: number;
  lines: BriefLine[];
}

/** The brief's node in the tree: "Brief · 12 lines". */
export function briefLabel(brief: Brief): string {
  return `Brief · ${count(brief.lines.length, 'line', 'lines')}`;
}

/** A brief line's description: its topic, then the ids it cites ("Conventions and preferences · #3, #40"). */
export function briefLineDescription(line: BriefLine): string {
  const marks = [line.pinned ? 'pinned' : '', line.edited ? 'edited' : ''].filter(Boolean);
  return [line.title, line.memories.map((id) => `#${id}`).join(', '), ...marks].join(' · ');
}

/** `loreline import sessions --json`, camelCased: every session accounted for, every count kept. */
export interface ImportReport {
  dryRun: boolean;
  backend: string;
  cancelled: boolean;
  sessions: {
    imported: number;
    unchanged: number;
    leftOut: { path: string; reason: string }[];
    failed: { path: string; error: string }[];
    /** rate limited or capped: nothing lost, the next import resumes them */
    deferred: { path: string; reason: string }[];
  };
  turns: number;
  chunks: number;
  candidates: number;
  rejected: Record<string, number>;
  added: number;
  merged: number;
  versioned: number;
  conflicts: number;
}

export interface ProjectCounts {
  active: number;
  superseded: number;
  forgotten: number;
  pendingConflicts: number;
}

/** `loreline status --json` run from the folder, camelCased; `projectCounts` are that project's. */
export interface Status {
  store: string;
  storeBytes: number;
  memories: { active: number; superseded: number; forgotten: number };
  sessionsImported: number;
  /** in every project: the status item shows `projectCounts.pendingConflicts` */
  pendingConflicts: number;
  backend: string;
  embedder: string;
  project: string;
  projectCounts: ProjectCounts;
}

export interface FileMemories {
  uri: string;
  items: Memory[];
}

/** "5" or "5-7": a source's lines in the session file (1-based). */
export function span(source: Source): string {
  return source.lineStart === source.lineEnd ? `${source.lineStart}` : `${source.lineStart}-${source.lineEnd}`;
}

/** The date part of an ISO timestamp, or "?". */
export function day(value: string | null | undefined): string {
  return value ? value.slice(0, 10) : '?';
}

/** "1 memory", "2 memories". */
export function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The status item's text: the project's memories and the project's own pending conflicts. */
export function statusSummary(status: Status): string {
  const counts = status.projectCounts;
  const conflicts = counts.pendingConflicts ? ` · ${count(counts.pendingConflicts, 'conflict', 'conflicts')}` : '';
  return `${count(counts.active, 'memory', 'memories')}${conflicts}`;
}

/** One line about a finished import; deferred sessions are named with why they wait. */
export function importSummary(report: ImportReport): string {
  const sessions = report.sessions;
  const failed = sessions.failed.length ? `, ${sessions.failed.length} failed` : '';
  const deferred = sessions.deferred.length
    ? `, ${sessions.deferred.length} deferred to the next import (${sessions.deferred[0].reason})` : '';
  const changes = [`${report.added} added`, `${report.merged} merged`];
  if (report.versioned) changes.push(`${report.versioned} versioned`);
  if (report.conflicts) changes.push(count(report.conflicts, 'conflict', 'conflicts'));
  return `${count(sessions.imported, 'session', 'sessions')} imported (${sessions.unchanged} unchanged${failed}` +
    `${deferred}): ${changes.join(', ')}${report.cancelled ? ' (cancelled)' : ''} · distiller ${report.backend}.`;
}

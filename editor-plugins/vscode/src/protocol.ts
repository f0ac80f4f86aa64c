/**
 * The contract with `loreline lsp` (docs/protocol.md): method names and result shapes.
 * Every method this extension sends is listed in `Methods`; a test checks each one against
 * the protocol document.
 */

export const Methods = {
  memories: 'loreline/memories',
  provenance: 'loreline/provenance',
  recall: 'loreline/recall',
  conflicts: 'loreline/conflicts',
  resolveConflict: 'loreline/resolveConflict',
  forget: 'loreline/forget',
  import: 'loreline/import',
  status: 'loreline/status',
  setApiKey: 'loreline/setApiKey',
} as const;

/** Server → client: the store changed; refresh what is shown. */
export const DidChange = 'loreline/didChange';

/** The code lens command (`workspace/executeCommand`), answered with `FileMemories`. */
export const ShowFileMemories = 'loreline.showFileMemories';

export type Kind = 'preference' | 'decision' | 'fact' | 'procedure' | 'episode';
export const KINDS: readonly Kind[] = ['preference', 'decision', 'fact', 'procedure', 'episode'];

export interface Memory {
  id: number;
  kind: Kind;
  text: string;
  status: 'active' | 'superseded' | 'forgotten';
  version: number;
  pinned: boolean;
  project: string;
  createdAt: string;
  observedAt: string | null;
  validUntil: string | null;
  files: string[];
  sourceCount: number;
}

export interface Source {
  tool: string;
  sessionId: string;
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

export interface ImportReport {
  imported: number;
  unchanged: number;
  leftOut: { path: string; reason: string }[];
  failed: { path: string; error: string }[];
  turns: number;
  chunks: number;
  candidates: number;
  rejected: Record<string, number>;
  added: number;
  merged: number;
  cancelled: boolean;
  backend: string;
}

/** `loreline status --json` plus the project (its keys are the CLI's snake_case ones). */
export interface Status {
  store: string;
  store_bytes: number;
  memories: { active: number; superseded: number; forgotten: number };
  sessions_imported: number;
  pending_conflicts: number;
  backend: string;
  embedder: string;
  project: string;
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

// The Sessions view's rows, as the server's rlog/sessions request answers
// them (docs/cli.md, `rlog-ls sessions --format json`), grouped by day for
// the tree. No vscode here: the unit tests load it.

/** The server's request for the sessions list, and its notification that it changed. */
export const sessionsRequest = 'rlog/sessions';
export const sessionsChanged = 'rlog/sessionsChanged';

export interface SessionRow {
  file: string;
  format: string;
  agent: string;
  id: string;
  title: string;
  cwd: string;
  start: string | null;
  end: string | null;
  duration_ms: number | null;
  tokens: { in: number; out: number; cached: number; cache_create: number };
  cost_usd: number | null;
  tool_calls: number;
  errors: number;
  subagents: number;
  parent: string;
  children: Child[];
  size: number;
  modified: string;
}

/** A sub-agent's file and the call that started it. */
export interface Child {
  file: string;
  call_id: string;
  agent_id: string;
  type: string;
}

/** childLabel names a sub-agent: its type and id, else its file's name. */
export function childLabel(c: Child): string {
  const name = [c.type, c.agent_id].filter((x) => x !== '').join(' ');
  return name !== '' ? name : c.file.split(/[\\/]/).pop() || c.file;
}

export interface SessionsDoc {
  version: number;
  sessions: SessionRow[];
}

export interface Touch {
  file: string;
  line: number;
  tool: string;
  target: string;
  session: string;
}

export interface TouchedDoc {
  version: number;
  file: string;
  changes: Touch[];
}

export interface Day {
  /** "Today", "Yesterday", or the local date, YYYY-MM-DD. */
  label: string;
  rows: SessionRow[];
}

/** The local date of an instant, YYYY-MM-DD. */
function localDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/** The instant a row is listed at: its start, else its file's modification. */
export function when(r: SessionRow): Date {
  return new Date(r.start ?? r.modified);
}

/** byDay groups rows (newest first, as the server sends them) by local day, newest day first. */
export function byDay(rows: SessionRow[], now: Date = new Date()): Day[] {
  const today = localDate(now);
  const y = new Date(now);
  y.setDate(y.getDate() - 1);
  const yesterday = localDate(y);
  const days: Day[] = [];
  const index = new Map<string, Day>();
  for (const r of rows) {
    const date = localDate(when(r));
    let day = index.get(date);
    if (!day) {
      day = { label: date === today ? 'Today' : date === yesterday ? 'Yesterday' : date, rows: [] };
      index.set(date, day);
      days.push(day);
    }
    day.rows.push(r);
  }
  return days;
}

/** A duration in milliseconds as the CLI writes it: 750ms, 1.5s, 2m 55s, 1h 5m. */
export function durationText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = ms / 1000;
  if (s < 60) return `${Math.round(s * 10) / 10}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${Math.floor(s % 60)}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

/** Digits grouped by thousands, as the CLI writes them. */
export function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** label is a row's first line: its title, or its file's name. */
export function label(r: SessionRow): string {
  return r.title || r.file.split(/[\\/]/).pop() || r.file;
}

/** description is what the tree shows after the title: time, agent, duration, calls, cost. */
export function description(r: SessionRow): string {
  const parts: string[] = [];
  if (r.start) {
    const d = new Date(r.start);
    parts.push(`${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`);
  }
  parts.push(r.agent || r.format);
  if (r.duration_ms !== null) parts.push(durationText(r.duration_ms));
  parts.push(`${r.tool_calls} call${r.tool_calls === 1 ? '' : 's'}`);
  if (r.errors > 0) parts.push(`${r.errors} error${r.errors === 1 ? '' : 's'}`);
  if (r.subagents > 0) parts.push(`${r.subagents} sub-agent${r.subagents === 1 ? '' : 's'}`);
  if (r.cost_usd !== null) parts.push(`$${r.cost_usd.toFixed(r.cost_usd < 1 ? 4 : 2)}`);
  return parts.join(' · ');
}

/** tooltip is a row's figures, one a line. */
export function tooltip(r: SessionRow): string {
  const t = r.tokens;
  const lines = [
    label(r),
    `${r.agent || r.format} session ${r.id}`,
    r.start ? `started ${r.start}` : 'no time recorded',
    r.duration_ms !== null ? `duration ${durationText(r.duration_ms)}` : '',
    `tokens ${grouped(t.in)} in, ${grouped(t.out)} out, ${grouped(t.cached)} cached, ${grouped(t.cache_create)} cache writes`,
    r.cost_usd !== null ? `cost $${r.cost_usd}` : '',
    `${r.tool_calls} tool calls, ${r.errors} errors, ${r.subagents} sub-agents`,
    r.file,
  ];
  return lines.filter((l) => l !== '').join('\n');
}

/** isRlog says a session file is rlog itself, opened as it is (the others open as their rlog view). */
export function isRlog(r: SessionRow): boolean {
  return r.format === 'rlog';
}

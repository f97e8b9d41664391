// Views: a session file in any format the server reads (a Claude Code
// transcript, an ATIF trajectory ...) shown as a read-only rlog document.
// The server makes the view's text (rlog/sessionView) and keeps it up to
// date while the file grows (rlog/sessionViewChanged); docs/views.md is the
// reference. Kept free of the vscode module so that it can be unit-tested
// with plain Node.
import * as path from 'path';

/** The scheme of views: rlog-view: and the session file's path with ".rlog" after it. */
export const viewScheme = 'rlog-view';

/** The server's request for the view of a session file. */
export const sessionViewRequest = 'rlog/sessionView';

/** The server's request that says whether a file is a session it can show as a view. */
export const sessionFormatRequest = 'rlog/sessionFormat';

/** The server's notification of edits that bring an open view up to date. */
export const sessionViewChanged = 'rlog/sessionViewChanged';

/** What rlog/sessionView answers. */
export interface SessionView {
  uri: string;
  source: string;
  format: string;
  description: string;
  text: string;
  losses: string;
  joined: boolean;
}

export interface Position {
  line: number;
  character: number;
}

export interface TextEdit {
  range: { start: Position; end: Position };
  newText: string;
}

/** What rlog/sessionViewChanged says. */
export interface ViewChange {
  textDocument: { uri: string; version: number };
  edits: TextEdit[];
}

/** isSessionCandidate says whether a file may be a session by its name: JSON or JSON Lines. */
export function isSessionCandidate(file: string): boolean {
  const ext = path.extname(file).toLowerCase();
  return ext === '.jsonl' || ext === '.json';
}

/**
 * applyEdits applies the edits of a ViewChange to text. Their ranges are
 * in the text as it was (not overlapping, in order); offsetAt turns a
 * position into an offset in that text (a TextDocument's offsetAt, which
 * counts UTF-16 units as the server does).
 */
export function applyEdits(text: string, edits: TextEdit[], offsetAt: (p: Position) => number): string {
  const spans = edits.map((e) => ({ start: offsetAt(e.range.start), end: offsetAt(e.range.end), text: e.newText }))
    .sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const s of spans) {
    if (s.start < at || s.end < s.start) throw new Error('overlapping edits');
    out += text.slice(at, s.start) + s.text;
    at = s.end;
  }
  return out + text.slice(at);
}

/** offsetIn is offsetAt for a plain string: the offset of a position (UTF-16 units, as JavaScript counts). */
export function offsetIn(text: string): (p: Position) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (p) => {
    if (p.line >= starts.length) return text.length;
    const start = starts[p.line];
    let end = p.line + 1 < starts.length ? starts[p.line + 1] - 1 : text.length;
    if (end > start && text[end - 1] === '\r') end--;
    return Math.min(start + p.character, end);
  };
}

/** lossSummary is the first line of a loss report, without the formats: "39 events, 203 losses of 4 kinds". */
export function lossSummary(losses: string): string {
  const first = losses.split('\n', 1)[0] ?? '';
  const i = first.indexOf(': ');
  return i >= 0 ? first.slice(i + 2) : first;
}

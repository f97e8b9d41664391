// The session view's command, as the server names it in its code lenses and
// as this extension runs it. Kept free of the vscode module so that it can be
// unit-tested with plain Node.

/** The server's command in its code lenses: {uri, line} of the place to show. */
export const serverShowSessionView = 'rlog-ls.showSessionView';

/** This extension's command: the session view in a webview. */
export const showSessionView = 'rlog.showSessionView';

/** The server's request for the session view's data or page. */
export const sessionReportRequest = 'rlog/sessionReport';

/** Where a lens (or the palette) asks the view to go. */
export interface ViewPlace {
  uri: string;
  /** 0-based line; the view is given it 1-based. */
  line: number;
}

interface CommandLike {
  command: string;
  arguments?: unknown[];
}

/**
 * toClientCommand makes a lens's command this extension's: the server's
 * own rlog-ls.showSessionView opens the page in a browser, for editors
 * without a view of their own; here the webview shows it.
 */
export function toClientCommand<T extends CommandLike | undefined>(cmd: T): T {
  if (cmd && cmd.command === serverShowSessionView) cmd.command = showSessionView;
  return cmd;
}

/** placeOf reads a command's argument: {uri, line}, or nothing usable. */
export function placeOf(arg: unknown): ViewPlace | undefined {
  if (!arg || typeof arg !== 'object') return undefined;
  const a = arg as { uri?: unknown; line?: unknown };
  if (typeof a.uri !== 'string' || a.uri === '') return undefined;
  const line = typeof a.line === 'number' && Number.isInteger(a.line) && a.line >= 0 ? a.line : 0;
  return { uri: a.uri, line };
}

/** revealLine reads the view's message asking to show a line: its 0-based line, or -1. */
export function revealLine(msg: unknown, lineCount: number): number {
  if (!msg || typeof msg !== 'object') return -1;
  const m = msg as { type?: unknown; line?: unknown };
  if (m.type !== 'reveal' || typeof m.line !== 'number' || !Number.isInteger(m.line) || m.line < 1) return -1;
  return Math.min(m.line, Math.max(lineCount, 1)) - 1;
}

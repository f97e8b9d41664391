// The session view in a webview: the page `rlog-ls report` writes, asked of
// the server (rlog/sessionReport) for the document as it is in the editor.
// Clicking an item in it reveals the item's line; the code lenses open it at
// their place; edits refresh it.
import * as path from 'path';
import * as vscode from 'vscode';
import { LanguageClient, State } from 'vscode-languageclient/node';
import { placeOf, revealLine, sessionReportRequest, showSessionView, ViewPlace } from './lens';

/** How long after the last edit an open view asks for new data. */
const refreshDelayMs = 800;

interface View {
  panel: vscode.WebviewPanel;
  uri: string;
  /** A place to show once the page says it is ready. */
  pending?: number;
  ready: boolean;
  stale: boolean;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * registerSessionView adds the command rlog.showSessionView ("rlog: Show
 * Session View", and the code lenses' command) and what keeps the views up
 * to date.
 */
export function registerSessionView(client: () => LanguageClient | undefined, output: vscode.OutputChannel): vscode.Disposable[] {
  const views = new Map<string, View>();
  let lastRlog: vscode.TextEditor | undefined;
  if (vscode.window.activeTextEditor?.document.languageId === 'rlog') lastRlog = vscode.window.activeTextEditor;

  async function show(arg?: unknown): Promise<void> {
    let place: ViewPlace | undefined = placeOf(arg);
    if (!place && arg instanceof vscode.Uri) place = { uri: arg.toString(), line: 0 };
    if (!place) {
      const ed = vscode.window.activeTextEditor?.document.languageId === 'rlog' ? vscode.window.activeTextEditor : lastRlog;
      if (!ed) {
        void vscode.window.showWarningMessage('rlog: open an rlog log to see its session view.');
        return;
      }
      place = { uri: ed.document.uri.toString(), line: -1 };
    }
    const c = client();
    if (!c || c.state !== State.Running) {
      void vscode.window.showErrorMessage('rlog: the session view needs the rlog language server, which is not running.');
      return;
    }
    const existing = views.get(place.uri);
    if (existing) {
      existing.panel.reveal(undefined, false);
      if (place.line >= 0) focus(existing, place.line);
      return;
    }
    const uri = vscode.Uri.parse(place.uri);
    // The server answers for open documents.
    const doc = await vscode.workspace.openTextDocument(uri);
    const panel = vscode.window.createWebviewPanel('rlog.sessionView', `Session: ${path.basename(uri.path)}`,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
      { enableScripts: true, enableCommandUris: false, retainContextWhenHidden: true, localResourceRoots: [] });
    const view: View = { panel, uri: place.uri, ready: false, stale: false, pending: place.line >= 0 ? place.line : undefined };
    views.set(place.uri, view);
    panel.onDidDispose(() => {
      if (view.timer) clearTimeout(view.timer);
      views.delete(view.uri);
    });
    panel.onDidChangeViewState(() => {
      if (panel.visible && view.stale) void refresh(view);
    });
    panel.webview.onDidReceiveMessage((msg) => {
      if (msg && msg.type === 'ready') {
        view.ready = true;
        if (view.pending !== undefined) focus(view, view.pending);
        return;
      }
      const line = revealLine(msg, doc.lineCount);
      if (line >= 0) void reveal(uri, line);
    });
    try {
      const res = await c.sendRequest<{ html: string } | null>(sessionReportRequest, { textDocument: { uri: place.uri }, format: 'html' });
      if (!res || typeof res.html !== 'string') throw new Error('the server has no session view of this document');
      panel.webview.html = res.html;
    } catch (err) {
      output.appendLine(`rlog: the session view of ${place.uri}: ${String(err)}`);
      panel.dispose();
      void vscode.window.showErrorMessage(`rlog: no session view of ${path.basename(uri.path)}: ${errorText(err)}`);
    }
  }

  function focus(view: View, line: number): void {
    if (!view.ready) {
      view.pending = line;
      return;
    }
    view.pending = undefined;
    void view.panel.webview.postMessage({ type: 'focus', line: line + 1 });
  }

  async function refresh(view: View): Promise<void> {
    const c = client();
    if (!c || c.state !== State.Running) return;
    view.stale = false;
    try {
      const data = await c.sendRequest(sessionReportRequest, { textDocument: { uri: view.uri }, format: 'data' });
      if (data) void view.panel.webview.postMessage({ type: 'data', data });
    } catch (err) {
      output.appendLine(`rlog: refreshing the session view of ${view.uri}: ${String(err)}`);
    }
  }

  async function reveal(uri: vscode.Uri, line: number): Promise<void> {
    const pos = new vscode.Position(line, 0);
    const shown = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
    const doc = shown ? shown.document : await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc, {
      viewColumn: shown?.viewColumn ?? vscode.ViewColumn.One, preserveFocus: false, selection: new vscode.Range(pos, pos),
    });
    editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  return [
    vscode.commands.registerCommand(showSessionView, show),
    vscode.window.onDidChangeActiveTextEditor((e) => {
      if (e?.document.languageId === 'rlog') lastRlog = e;
    }),
    vscode.workspace.onDidChangeTextDocument((e) => {
      const view = views.get(e.document.uri.toString());
      if (!view || e.contentChanges.length === 0) return;
      if (view.timer) clearTimeout(view.timer);
      view.timer = setTimeout(() => {
        view.timer = undefined;
        if (view.panel.visible) void refresh(view);
        else view.stale = true;
      }, refreshDelayMs);
    }),
    { dispose: () => { for (const v of views.values()) v.panel.dispose(); } },
  ];
}

function errorText(err: unknown): string {
  if (err && typeof err === 'object' && 'message' in err) return String((err as { message: unknown }).message);
  return String(err);
}

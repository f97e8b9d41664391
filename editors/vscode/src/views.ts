// "rlog: Open as rlog View": a session file the server reads (a Claude Code
// transcript, an ATIF trajectory ...) opens as a read-only rlog document,
// made and kept up to date by the server (see view.ts and docs/views.md).
// The documents are this extension's content provider's, so VS Code shows
// them read-only; their paths end in .rlog, so they are rlog documents and
// the language client gives them to the server like any log.
import * as path from 'path';
import * as vscode from 'vscode';
import { LanguageClient, State } from 'vscode-languageclient/node';
import {
  applyEdits, isSessionCandidate, lossSummary, SessionView, sessionFormatRequest, sessionViewRequest, ViewChange, viewScheme,
} from './view';

/** The command, in the palette, the editor title and the explorer. */
export const openViewCommand = 'rlog.openView';

/** The text of each open view, by URI. */
const texts = new Map<string, string>();
const changed = new vscode.EventEmitter<vscode.Uri>();

/**
 * Session files (URIs) the server gets because a view of them was opened:
 * in them, hover and Go to Definition lead back to the view's line. They
 * stay served until they close.
 */
const servedSources = new Set<string>();

/** Files (paths) the server said are sessions it shows as views: the editor title's action is shown for them. */
const sessionFiles = new Set<string>();
/** Files already asked about. */
const asked = new Set<string>();

/** servedForView says whether the server gets a document because of a view. */
export function servedForView(doc: vscode.TextDocument): boolean {
  return servedSources.has(doc.uri.toString());
}

/** sourceClosed forgets a session file the server got for a view, once closed. */
export function sourceClosed(doc: vscode.TextDocument): void {
  servedSources.delete(doc.uri.toString());
}

/**
 * onViewChanged applies the server's rlog/sessionViewChanged to the view's
 * text and tells VS Code, which updates the document (and the server
 * through the language client's didChange). Edits made for another version
 * are dropped: the server sends them again for the current one.
 */
export function onViewChanged(p: ViewChange): void {
  const uri = vscode.Uri.parse(p.textDocument.uri);
  const key = uri.toString();
  const text = texts.get(key);
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
  if (text === undefined || !doc || doc.version !== p.textDocument.version) return;
  texts.set(key, applyEdits(text, p.edits, (pos) => doc.offsetAt(new vscode.Position(pos.line, pos.character))));
  changed.fire(uri);
}

/** sourceOf is the session file a view shows. */
function sourceOf(view: vscode.Uri): vscode.Uri {
  return view.with({ scheme: 'file', path: view.path.replace(/\.rlog$/, '') });
}

/**
 * registerViews adds the command, the views' documents and what asks the
 * server which files are sessions. It returns what to dispose and what to
 * call once the server runs.
 */
export function registerViews(client: () => LanguageClient | undefined, output: vscode.OutputChannel,
  served: (doc: vscode.TextDocument) => boolean): { disposables: vscode.Disposable[]; started: () => void } {
  function running(): LanguageClient | undefined {
    const c = client();
    return c && c.state === State.Running ? c : undefined;
  }

  async function request(uri: vscode.Uri): Promise<SessionView> {
    // A view restored with the window asks for its text while the server
    // may still be starting.
    for (let waited = 0; !running() && client()?.state === State.Starting && waited < 30_000; waited += 100) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const c = running();
    if (!c) throw new Error('the rlog language server is not running');
    return c.sendRequest<SessionView>(sessionViewRequest, { textDocument: { uri: uri.toString() } });
  }

  async function open(resource?: unknown): Promise<void> {
    const active = vscode.window.activeTextEditor;
    const uri = resource instanceof vscode.Uri ? resource : active?.document.uri;
    if (!uri) {
      void vscode.window.showWarningMessage('rlog: open a session file (a Claude Code transcript, an ATIF trajectory …) to see it as rlog.');
      return;
    }
    if (uri.scheme === viewScheme) {
      await vscode.window.showTextDocument(uri, { preview: false });
      return;
    }
    const name = path.basename(uri.path);
    if (uri.scheme !== 'file') {
      void vscode.window.showWarningMessage(`rlog: ${name} is not a file on disk; save it first to see it as rlog.`);
      return;
    }
    if (!running()) {
      void vscode.window.showErrorMessage('rlog: opening a session as rlog needs the rlog language server, which is not running.');
      return;
    }
    let v: SessionView;
    try {
      v = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `rlog: reading ${name}` }, () => request(uri));
    } catch (err) {
      output.appendLine(`rlog: ${name} as an rlog view: ${errorText(err)}`);
      void vscode.window.showErrorMessage(`rlog: ${name} cannot be opened as rlog: ${errorText(err)}`);
      return;
    }
    const viewUri = vscode.Uri.parse(v.uri);
    const known = texts.has(viewUri.toString());
    texts.set(viewUri.toString(), v.text);
    if (known) changed.fire(viewUri);
    serveSource(uri);
    let doc = await vscode.workspace.openTextDocument(viewUri);
    if (doc.languageId !== 'rlog') doc = await vscode.languages.setTextDocumentLanguage(doc, 'rlog');
    const beside = active !== undefined && active.document.uri.toString() === uri.toString();
    await vscode.window.showTextDocument(doc, { viewColumn: beside ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active, preview: false });
    output.appendLine(`rlog: ${name} (${v.description}) opened as rlog: ${lossSummary(v.losses)}\n${v.losses}`);
    vscode.window.setStatusBarMessage(`rlog: ${name} as rlog: ${lossSummary(v.losses)}; hover the first line for what the view does not carry`, 10_000);
  }

  /**
   * serveSource has the server get the session file too, when it is open,
   * so that Go to Definition in it leads back to the view.
   */
  function serveSource(uri: vscode.Uri): void {
    const key = uri.toString();
    if (servedSources.has(key)) return;
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
    const already = doc !== undefined && served(doc);
    servedSources.add(key);
    const c = running();
    if (doc && !already && c) {
      void c.sendNotification('textDocument/didOpen', c.code2ProtocolConverter.asOpenTextDocumentParams(doc));
    }
  }

  /** classify asks the server whether the active file is a session, for the editor title's action. */
  async function classify(editor: vscode.TextEditor | undefined): Promise<void> {
    const uri = editor?.document.uri;
    if (!uri || uri.scheme !== 'file' || !isSessionCandidate(uri.fsPath) || asked.has(uri.fsPath)) return;
    const c = running();
    if (!c) return;
    asked.add(uri.fsPath);
    let f: unknown = null;
    try {
      f = await c.sendRequest(sessionFormatRequest, { textDocument: { uri: uri.toString() } });
    } catch (err) {
      output.appendLine(`rlog: ${sessionFormatRequest} of ${uri.toString()}: ${errorText(err)}`);
    }
    const name = path.basename(uri.fsPath);
    output.appendLine(f ? `rlog: ${name} is a session: rlog: Open as rlog View shows it as rlog`
      : `rlog: ${name} is not a session rlog-ls shows as rlog`);
    if (f) {
      sessionFiles.add(uri.fsPath);
      await vscode.commands.executeCommand('setContext', 'rlog.sessionFiles', [...sessionFiles]);
    }
  }

  const disposables = [
    changed,
    vscode.workspace.registerTextDocumentContentProvider(viewScheme, {
      onDidChange: changed.event,
      provideTextDocumentContent: async (uri) => {
        const known = texts.get(uri.toString());
        if (known !== undefined) return known;
        // A view restored with the window, or opened by its URI: made anew.
        try {
          const v = await request(uri);
          texts.set(uri.toString(), v.text);
          serveSource(sourceOf(uri));
          return v.text;
        } catch (err) {
          output.appendLine(`rlog: ${uri.toString()}: ${errorText(err)}`);
          throw err;
        }
      },
    }),
    vscode.commands.registerCommand(openViewCommand, open),
    vscode.window.onDidChangeActiveTextEditor((e) => void classify(e)),
    vscode.workspace.onDidCloseTextDocument((d) => {
      if (d.uri.scheme === viewScheme) texts.delete(d.uri.toString());
      if (d.uri.scheme === 'file') {
        asked.delete(d.uri.fsPath);
        if (sessionFiles.delete(d.uri.fsPath)) void vscode.commands.executeCommand('setContext', 'rlog.sessionFiles', [...sessionFiles]);
      }
    }),
  ];
  // Once the server runs: the file shown may be a session.
  return { disposables, started: () => void classify(vscode.window.activeTextEditor) };
}

export function errorText(err: unknown): string {
  if (err && typeof err === 'object' && 'message' in err) return String((err as { message: unknown }).message);
  return String(err);
}

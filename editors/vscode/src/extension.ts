// The rlog extension: the rlog language (grammar and configuration come from
// package.json) and a client for the rlog-ls language server.
import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import { registerFollow } from './follow';
import { bundledFolder, findServer, notFoundMessage, releasesUrl } from './server';
import { toClientCommand } from './lens';
import { registerSessionView } from './sessionView';
import { CompanionRecord, logOf, recordScheme, recordUri } from './companion';
import { sessionViewChanged, ViewChange } from './view';
import { onViewChanged, registerViews, servedForView, sourceClosed } from './views';
import { registerCompare } from './compare';
import { maskedScheme } from './masked';
import { registerSessions } from './sessions';
import { sessionsChanged } from './sessionRows';

/** The server-side command that converts a JSON/JSONL trajectory to rlog. */
const serverConvertCommand = 'rlog-ls.convertToRlog';

/** The server's request for the full record of a line (docs/companions.md). */
const companionRecordRequest = 'rlog/companionRecord';

/** The text of the record documents shown, by URI, while they are open. */
const records = new Map<string, string>();

let client: LanguageClient | undefined;
/** Called once the server runs (the views ask it about the file shown). */
let serverStarted: () => void = () => {};
/** Called when the server says the sessions list changed. */
let onSessionsChanged: () => void = () => {};
let output: vscode.OutputChannel;
let traceOutput: vscode.OutputChannel;
let status: vscode.StatusBarItem;
/** The folder of the server bundled in this package (absent from the platform-neutral package). */
let bundledDir: string;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  bundledDir = vscode.Uri.joinPath(context.extensionUri, bundledFolder).fsPath;
  output = vscode.window.createOutputChannel('rlog');
  traceOutput = vscode.window.createOutputChannel('rlog (trace)');
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 0);
  status.command = 'rlog.showOutput';
  context.subscriptions.push(output, traceOutput, status);

  context.subscriptions.push(
    vscode.commands.registerCommand('rlog.restartServer', restart),
    vscode.commands.registerCommand('rlog.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('rlog.convertFile', convertFile),
    vscode.commands.registerCommand('rlog.showFullRecord', showFullRecord),
    vscode.workspace.registerTextDocumentContentProvider(recordScheme, {
      provideTextDocumentContent: (uri) => records.get(uri.toString()) ?? '',
    }),
    vscode.workspace.onDidCloseTextDocument((d) => {
      if (d.uri.scheme === recordScheme) records.delete(d.uri.toString());
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('rlog.server')) void restart();
    }),
    vscode.window.onDidChangeActiveTextEditor(updateStatus),
    ...registerSessionView(() => client, output),
    ...registerCompare(() => client, output),
  );
  const views = registerViews(() => client, output, served);
  context.subscriptions.push(...views.disposables);
  const sessionsView = registerSessions(() => client, output);
  context.subscriptions.push(...sessionsView.disposables);
  onSessionsChanged = sessionsView.changed;
  serverStarted = () => {
    views.started();
    sessionsView.started();
  };
  registerFollow(context);
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}

function settings(): Record<string, unknown> {
  const c = vscode.workspace.getConfiguration('rlog');
  return {
    disabledCodes: c.get<string[]>('disabledCodes', []),
    severity: c.get<Record<string, string>>('severity', {}),
    outline: { maxItems: c.get<number>('outline.maxItems', 2000) },
    diagnostics: {
      maxPerDocument: c.get<number>('diagnostics.maxPerDocument', 1000),
      debounceMs: c.get<number>('diagnostics.debounceMs', 100),
    },
    inlayHints: {
      latency: c.get<boolean>('inlayHints.latency', true),
      gaps: c.get<boolean>('inlayHints.gaps', true),
      gapThresholdSeconds: c.get<number>('inlayHints.gapThresholdSeconds', 60),
    },
  };
}

async function start(): Promise<void> {
  const conf = vscode.workspace.getConfiguration('rlog');
  const found = findServer(conf.get<string>('server.path'), bundledDir);
  if (!('path' in found)) {
    const msg = notFoundMessage(found);
    output.appendLine(msg);
    setStatus('$(warning) rlog-ls', 'The rlog language server was not found: click for details');
    const actions = found.badSetting !== undefined || found.bundledNotExecutable !== undefined
      ? ['Open Settings'] : ['Open Downloads', 'Open Settings'];
    void vscode.window.showErrorMessage(msg, ...actions).then(async (pick) => {
      if (pick === 'Open Downloads') {
        await vscode.env.openExternal(vscode.Uri.parse(releasesUrl));
      } else if (pick === 'Open Settings') {
        await vscode.commands.executeCommand('workbench.action.openSettings', 'rlog.server.path');
      }
    });
    return;
  }
  const args = conf.get<string[]>('server.args', []);
  output.appendLine(`rlog: starting ${found.path} (from ${found.source})`);
  const serverOptions: ServerOptions = {
    run: { command: found.path, args: ['serve', ...args], transport: TransportKind.stdio },
    debug: { command: found.path, args: ['serve', '--log-level', 'debug', ...args], transport: TransportKind.stdio },
  };
  const clientOptions: LanguageClientOptions = {
    // Logs, and the JSON and JSONL files beside them that are their full
    // record (companions), for Go to Definition and hover back to the log;
    // the middleware keeps every other JSON file from the server.
    documentSelector: [{ language: 'rlog' }, { scheme: 'file', pattern: '**/*.jsonl' }, { scheme: 'file', pattern: '**/*.json' }],
    synchronize: { configurationSection: 'rlog' },
    initializationOptions: settings(),
    outputChannel: output,
    traceOutputChannel: traceOutput,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    middleware: {
      ...companionMiddleware,
      // The code lenses' command opens the session view here, in a webview.
      resolveCodeLens: async (lens, token, next) => {
        const r = await next(lens, token);
        if (r) toClientCommand(r.command);
        return r;
      },
    },
    errorHandler: {
      error: () => ({ action: ErrorAction.Continue }),
      closed: () => {
        output.appendLine('rlog: the language server stopped; use "rlog: Restart Language Server" to start it again.');
        return { action: CloseAction.DoNotRestart, message: 'The rlog language server stopped. Run "rlog: Restart Language Server" to start it again.' };
      },
    },
  };
  client = new LanguageClient('rlog', 'rlog language server', serverOptions, clientOptions);
  client.onNotification(sessionViewChanged, (p: ViewChange) => onViewChanged(p));
  client.onNotification(sessionsChanged, () => onSessionsChanged());
  client.onDidChangeState((e) => {
    if (e.newState === State.Running) {
      setStatus('rlog-ls', `rlog language server running (${found.path})`);
      serverStarted();
    }
    if (e.newState === State.Stopped) setStatus('$(warning) rlog-ls', 'rlog language server stopped: click for its output');
  });
  try {
    await client.start();
  } catch (err) {
    output.appendLine(`rlog: the language server failed to start: ${String(err)}`);
    void vscode.window.showErrorMessage(`rlog: the language server (${found.path}) failed to start: ${String(err)}`, 'Show Output')
      .then((pick) => { if (pick) output.show(true); });
  }
}

async function stop(): Promise<void> {
  const c = client;
  client = undefined;
  if (c && c.state !== State.Stopped) {
    try {
      await c.stop();
    } catch (err) {
      output.appendLine(`rlog: stopping the language server: ${String(err)}`);
    }
  }
}

async function restart(): Promise<void> {
  output.appendLine('rlog: restarting the language server');
  await stop();
  await start();
}

function setStatus(text: string, tooltip: string): void {
  status.text = text;
  status.tooltip = tooltip;
  updateStatus();
}

function updateStatus(): void {
  if (vscode.window.activeTextEditor?.document.languageId === 'rlog') status.show();
  else status.hide();
}

/**
 * convertFile converts the active file (or the one picked in the explorer):
 * an rlog file to another format through the server's conversion code
 * actions, a JSON or JSONL trajectory to rlog through the server's
 * rlog-ls.convertToRlog command. The server writes the new file.
 */
async function convertFile(resource?: vscode.Uri): Promise<void> {
  const uri = resource instanceof vscode.Uri ? resource : vscode.window.activeTextEditor?.document.uri;
  if (!uri) {
    void vscode.window.showWarningMessage('rlog: open an rlog, JSON or JSONL file to convert.');
    return;
  }
  if (!client || client.state !== State.Running) {
    void vscode.window.showErrorMessage('rlog: converting needs the rlog language server, which is not running.', 'Show Output')
      .then((pick) => { if (pick) output.show(true); });
    return;
  }
  const doc = await vscode.workspace.openTextDocument(uri);
  if (doc.languageId === 'rlog') {
    await convertRlog(doc);
  } else {
    await convertToRlog(uri);
  }
}

async function convertRlog(doc: vscode.TextDocument): Promise<void> {
  const whole = new vscode.Range(0, 0, doc.lineCount, 0);
  const actions = (await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[]>(
    'vscode.executeCodeActionProvider', doc.uri, whole, vscode.CodeActionKind.Source.value, 20)) ?? [];
  const conversions = actions.filter((a): a is vscode.CodeAction => 'kind' in a || 'edit' in a);
  if (conversions.length === 0) {
    void vscode.window.showWarningMessage('rlog: the language server offers no conversion for this file.');
    return;
  }
  const pick = await vscode.window.showQuickPick(
    conversions.map((a) => ({ label: a.title, action: a })),
    { placeHolder: 'Convert this rlog file to…' });
  if (!pick) return;
  if (pick.action.edit) await vscode.workspace.applyEdit(pick.action.edit);
  if (pick.action.command) {
    await vscode.commands.executeCommand(pick.action.command.command, ...(pick.action.command.arguments ?? []));
  }
}

async function convertToRlog(uri: vscode.Uri): Promise<void> {
  output.appendLine(`rlog: converting ${uri.toString()} to rlog`);
  let result: unknown;
  try {
    result = await client!.sendRequest('workspace/executeCommand', { command: serverConvertCommand, arguments: [uri.toString()] });
  } catch (err) {
    output.appendLine(`rlog: ${serverConvertCommand} failed: ${String(err)}`);
    void vscode.window.showErrorMessage(`rlog: could not convert ${vscode.workspace.asRelativePath(uri)}: ${errorText(err)}`);
    return;
  }
  const created = createdUri(result);
  if (created) await vscode.window.showTextDocument(created);
}

function errorText(err: unknown): string {
  if (err && typeof err === 'object' && 'message' in err) return String((err as { message: unknown }).message);
  return String(err);
}

/** createdUri reads the new file's URI from the command's result, if it says. */
function createdUri(result: unknown): vscode.Uri | undefined {
  if (typeof result === 'string' && result.includes(':')) return vscode.Uri.parse(result);
  if (result && typeof result === 'object' && 'uri' in result && typeof (result as { uri: unknown }).uri === 'string') {
    return vscode.Uri.parse((result as { uri: string }).uri);
  }
  return undefined;
}

/**
 * served says whether the server gets a document: a log (a view too), a
 * companion, or a session file whose view was opened.
 */
function served(doc: vscode.TextDocument): boolean {
  // Compare With…'s masked views are for reading side by side: their
  // masked values are no log's, and nothing is asked of the server there.
  if (doc.uri.scheme === maskedScheme) return false;
  if (doc.languageId === 'rlog' || servedForView(doc)) return true;
  return doc.uri.scheme === 'file' && logOf(doc.uri.fsPath) !== undefined;
}

/**
 * companionMiddleware sends the server the logs and their companions only,
 * and asks it about a companion only for what it answers there (hover and
 * Go to Definition, which lead back to the log).
 */
const logOnly = (doc: vscode.TextDocument) => doc.languageId === 'rlog' && doc.uri.scheme !== maskedScheme;
const companionMiddleware: LanguageClientOptions['middleware'] = {
  didOpen: (doc, next) => (served(doc) ? next(doc) : Promise.resolve()),
  didChange: (e, next) => (served(e.document) ? next(e) : Promise.resolve()),
  didClose: (doc, next) => {
    const send = served(doc);
    sourceClosed(doc);
    return send ? next(doc) : Promise.resolve();
  },
  didSave: (doc, next) => (served(doc) ? next(doc) : Promise.resolve()),
  provideHover: (doc, pos, token, next) => (served(doc) ? next(doc, pos, token) : undefined),
  provideDefinition: (doc, pos, token, next) => (served(doc) ? next(doc, pos, token) : undefined),
  provideReferences: (doc, pos, options, token, next) => (logOnly(doc) ? next(doc, pos, options, token) : undefined),
  provideDocumentHighlights: (doc, pos, token, next) => (logOnly(doc) ? next(doc, pos, token) : undefined),
  provideDocumentSymbols: (doc, token, next) => (logOnly(doc) ? next(doc, token) : undefined),
  provideFoldingRanges: (doc, context, token, next) => (logOnly(doc) ? next(doc, context, token) : undefined),
  provideCodeActions: (doc, range, context, token, next) => (logOnly(doc) ? next(doc, range, context, token) : undefined),
  provideCodeLenses: (doc, token, next) => (logOnly(doc) ? next(doc, token) : undefined),
  provideDocumentLinks: (doc, token, next) => (logOnly(doc) ? next(doc, token) : undefined),
  provideDocumentSemanticTokens: (doc, token, next) => (logOnly(doc) ? next(doc, token) : undefined),
  provideDocumentRangeSemanticTokens: (doc, range, token, next) => (logOnly(doc) ? next(doc, range, token) : undefined),
  // The sub-agent tree starts from a log or a view; its items lead on from there.
  prepareCallHierarchy: (doc, pos, token, next) => (logOnly(doc) ? next(doc, pos, token) : undefined),
};

/**
 * showFullRecord shows the full record of the current line of a log (the
 * whole output, message or input the log cut short) as a read-only
 * document beside it, through the server's rlog/companionRecord request.
 */
async function showFullRecord(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'rlog') {
    void vscode.window.showWarningMessage('rlog: put the cursor on a line of an rlog log.');
    return;
  }
  if (!client || client.state !== State.Running) {
    void vscode.window.showErrorMessage('rlog: the full record needs the rlog language server, which is not running.');
    return;
  }
  let rec: CompanionRecord | null;
  try {
    rec = await client.sendRequest<CompanionRecord | null>(companionRecordRequest,
      client.code2ProtocolConverter.asTextDocumentPositionParams(editor.document, editor.selection.active));
  } catch (err) {
    void vscode.window.showErrorMessage(`rlog: the full record could not be read: ${errorText(err)}`);
    return;
  }
  if (!rec) {
    void vscode.window.showInformationMessage('rlog: this line has no full record (the log has no companion file, or the line is not in it).');
    return;
  }
  const uri = vscode.Uri.parse(recordUri(editor.document.uri.fsPath, rec));
  records.set(uri.toString(), rec.text);
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true });
}

// The Sessions view (explorer): the sessions of the workspace folder from
// the server's sessions index (rlog/sessions), grouped by day, kept up to
// date by rlog/sessionsChanged; and "Sessions That Changed This File".
import * as path from 'path';
import * as vscode from 'vscode';
import { LanguageClient, State } from 'vscode-languageclient/node';
import {
  byDay, Child, childLabel, Day, description, isRlog, label, SessionRow, SessionsDoc, sessionsRequest, tooltip, TouchedDoc,
} from './sessionRows';

export const sessionsViewId = 'rlog.sessions';

type Node = { kind: 'day'; day: Day } | { kind: 'session'; row: SessionRow } | { kind: 'child'; child: Child }
  | { kind: 'note'; text: string };

export function registerSessions(client: () => LanguageClient | undefined, output: vscode.OutputChannel):
  { disposables: vscode.Disposable[]; changed: () => void; started: () => void } {
  const changedTree = new vscode.EventEmitter<Node | undefined>();
  let rows: SessionRow[] | undefined;
  let note = 'Waiting for the rlog language server…';
  let visible = false;

  function running(): LanguageClient | undefined {
    const c = client();
    return c && c.state === State.Running ? c : undefined;
  }

  async function load(): Promise<void> {
    const c = running();
    if (!c) return;
    try {
      const doc = await c.sendRequest<SessionsDoc>(sessionsRequest, {});
      rows = doc.sessions;
      note = rows.length === 0 ? 'No sessions of this folder were found.' : '';
    } catch (err) {
      note = `The sessions could not be listed: ${String(err)}`;
      output.appendLine(`rlog: ${sessionsRequest}: ${String(err)}`);
    }
    changedTree.fire(undefined);
  }

  const provider: vscode.TreeDataProvider<Node> = {
    onDidChangeTreeData: changedTree.event,
    getChildren: async (node?: Node): Promise<Node[]> => {
      if (!node) {
        if (rows === undefined) await load();
        if (!rows || rows.length === 0) return [{ kind: 'note', text: note }];
        return byDay(rows).map((day) => ({ kind: 'day', day }));
      }
      if (node.kind === 'day') return node.day.rows.map((row) => ({ kind: 'session', row }));
      if (node.kind === 'session') return (node.row.children ?? []).map((child) => ({ kind: 'child', child }));
      return [];
    },
    getTreeItem: (node: Node): vscode.TreeItem => {
      if (node.kind === 'note') return new vscode.TreeItem(node.text);
      if (node.kind === 'day') {
        const item = new vscode.TreeItem(node.day.label, vscode.TreeItemCollapsibleState.Expanded);
        item.description = `${node.day.rows.length} session${node.day.rows.length === 1 ? '' : 's'}`;
        item.contextValue = 'day';
        return item;
      }
      if (node.kind === 'child') {
        const c = node.child;
        const item = new vscode.TreeItem(childLabel(c), vscode.TreeItemCollapsibleState.None);
        item.description = 'sub-agent';
        item.tooltip = `${c.file}\nstarted by the call ${c.call_id}`;
        item.resourceUri = vscode.Uri.file(c.file);
        item.iconPath = new vscode.ThemeIcon('type-hierarchy-sub');
        item.contextValue = 'session';
        item.command = { command: 'rlog.sessions.open', title: 'Open', arguments: [node] };
        return item;
      }
      const r = node.row;
      const item = new vscode.TreeItem(label(r),
        (r.children ?? []).length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
      item.description = description(r);
      item.tooltip = tooltip(r);
      item.resourceUri = vscode.Uri.file(r.file);
      item.iconPath = new vscode.ThemeIcon(r.errors > 0 ? 'warning' : 'comment-discussion');
      item.contextValue = 'session';
      item.command = { command: 'rlog.sessions.open', title: 'Open', arguments: [node] };
      return item;
    },
  };

  /** uriOf is the session file of a tree node, or the argument itself when it is a URI. */
  function uriOf(arg: unknown): vscode.Uri | undefined {
    if (arg instanceof vscode.Uri) return arg;
    const n = arg as Node | undefined;
    if (n && n.kind === 'session') return vscode.Uri.file(n.row.file);
    if (n && n.kind === 'child') return vscode.Uri.file(n.child.file);
    return undefined;
  }

  /** open shows a session: an rlog file as it is, any other as its rlog view. */
  async function open(arg: unknown): Promise<vscode.Uri | undefined> {
    const uri = uriOf(arg);
    if (!uri) return undefined;
    const n = arg as Node;
    if (n && n.kind === 'session' && isRlog(n.row)) {
      await vscode.window.showTextDocument(uri, { preview: true });
    } else {
      await vscode.commands.executeCommand('rlog.openView', uri);
    }
    return uri;
  }

  async function touched(resource?: unknown): Promise<void> {
    const uri = resource instanceof vscode.Uri ? resource : vscode.window.activeTextEditor?.document.uri;
    if (!uri || uri.scheme !== 'file') {
      void vscode.window.showWarningMessage('rlog: open a file on disk to list the sessions that changed it.');
      return;
    }
    const c = running();
    if (!c) {
      void vscode.window.showErrorMessage('rlog: listing sessions needs the rlog language server, which is not running.');
      return;
    }
    let doc: TouchedDoc;
    try {
      doc = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'rlog: reading sessions' },
        () => c.sendRequest<TouchedDoc>(sessionsRequest, { touched: uri.fsPath }));
    } catch (err) {
      void vscode.window.showErrorMessage(`rlog: the sessions could not be listed: ${String(err)}`);
      return;
    }
    const name = path.basename(uri.fsPath);
    if (doc.changes.length === 0) {
      void vscode.window.showInformationMessage(`rlog: no session of this folder changed ${name}.`);
      return;
    }
    const titles = new Map((rows ?? []).map((r) => [r.file, r.title]));
    const pick = await vscode.window.showQuickPick(doc.changes.map((t) => ({
      label: `${t.tool}: ${path.basename(t.target)}`,
      description: titles.get(t.file) ?? t.session,
      detail: `${t.file}:${t.line}`,
      touch: t,
    })), { title: `Sessions that changed ${name}`, matchOnDescription: true, matchOnDetail: true });
    if (!pick) return;
    const pos = new vscode.Position(Math.max(0, pick.touch.line - 1), 0);
    await vscode.window.showTextDocument(vscode.Uri.file(pick.touch.file), { selection: new vscode.Range(pos, pos), preview: true });
  }

  const tree = vscode.window.createTreeView(sessionsViewId, { treeDataProvider: provider, showCollapseAll: true });
  const disposables: vscode.Disposable[] = [
    changedTree,
    tree,
    tree.onDidChangeVisibility((e) => {
      visible = e.visible;
      if (visible && rows === undefined) changedTree.fire(undefined);
    }),
    vscode.commands.registerCommand('rlog.sessions.refresh', () => load()),
    vscode.commands.registerCommand('rlog.sessions.open', open),
    vscode.commands.registerCommand('rlog.sessions.showSessionView', async (arg: unknown) => {
      const n = arg as Node;
      if (!uriOf(arg)) return;
      if (n && n.kind === 'session' && isRlog(n.row)) {
        await vscode.commands.executeCommand('rlog.showSessionView', uriOf(arg));
        return;
      }
      // The session view of a transcript is its rlog view's.
      await open(arg);
      await vscode.commands.executeCommand('rlog.showSessionView');
    }),
    vscode.commands.registerCommand('rlog.sessions.compareWith', (arg: unknown) => vscode.commands.executeCommand('rlog.compareWith', uriOf(arg))),
    vscode.commands.registerCommand('rlog.sessions.convert', (arg: unknown) => vscode.commands.executeCommand('rlog.convertFile', uriOf(arg))),
    vscode.commands.registerCommand('rlog.sessions.redact', async (arg: unknown) => {
      const uri = uriOf(arg);
      const c = running();
      if (!uri || !c) return;
      await c.sendRequest('workspace/executeCommand', { command: 'rlog-ls.redact', arguments: [{ uri: uri.toString() }] });
    }),
    vscode.commands.registerCommand('rlog.sessionsTouchingFile', touched),
  ];
  return {
    disposables,
    // rlog/sessionsChanged: list again if anyone is looking, else when someone does.
    changed: () => {
      if (visible) void load();
      else rows = undefined;
    },
    started: () => {
      rows = undefined;
      changedTree.fire(undefined);
    },
  };
}

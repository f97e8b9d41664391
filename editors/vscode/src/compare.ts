// "rlog: Compare With…": two sessions (any formats the server reads: an
// .rlog log, a Claude Code transcript, a Codex rollout, a Gemini CLI
// session ...) in VS Code's diff editor, each as its rlog view with what
// differs between any two runs masked (ids, timestamps, token counts,
// latencies, durations, costs, the session's folder), so that only
// behaviour shows. The server masks (rlog/maskedView, the masking
// `rlog-ls compare --masked` uses); docs/editors.md is the reference.
import * as path from 'path';
import * as vscode from 'vscode';
import { LanguageClient, State } from 'vscode-languageclient/node';
import { maskedScheme, maskedUri, maskedViewRequest, MaskedView, pickTitle } from './masked';

/** The command, in the palette, the explorer, the editor title's menu. */
export const compareWithCommand = 'rlog.compareWith';

/** The masked texts shown, by URI, while they are open. */
const texts = new Map<string, string>();

/** The files Compare With… offers as the other session. */
const sessionGlob = '**/*.{rlog,jsonl,json}';
const excluded = '{**/node_modules/**,**/.git/**,**/package.json,**/package-lock.json,**/tsconfig*.json,**/.vscode/**}';

/** registerCompare adds the command and the masked documents' provider. */
export function registerCompare(client: () => LanguageClient | undefined, output: vscode.OutputChannel): vscode.Disposable[] {
  function running(): LanguageClient | undefined {
    const c = client();
    return c && c.state === State.Running ? c : undefined;
  }

  /** sessionOf is the session a resource names: a file, or the file a view shows. */
  function sessionOf(resource: unknown): vscode.Uri | undefined {
    // The Sessions view's rlog.sessions.compareWith passes its session's file.
    if (resource instanceof vscode.Uri) return resource;
    return vscode.window.activeTextEditor?.document.uri;
  }

  /** pickOther asks for the other session: the workspace's session files, or one chosen on disk. */
  async function pickOther(first: vscode.Uri): Promise<vscode.Uri | undefined> {
    const files = await vscode.workspace.findFiles(sessionGlob, excluded, 5000);
    const firstPath = first.scheme === 'file' ? first.fsPath : '';
    type Item = vscode.QuickPickItem & { uri?: vscode.Uri };
    const items: Item[] = files
      .filter((u) => u.fsPath !== firstPath)
      .sort((a, b) => a.fsPath.localeCompare(b.fsPath))
      .map((u) => ({ label: path.basename(u.fsPath), description: vscode.workspace.asRelativePath(path.dirname(u.fsPath)), uri: u }));
    items.push({ label: 'Browse…', description: 'a session file anywhere' });
    const picked = await vscode.window.showQuickPick(items, {
      title: pickTitle(path.basename(first.path)),
      placeHolder: 'the session to compare with (an .rlog log, a Claude Code transcript, a Codex rollout, a Gemini CLI session …)',
      matchOnDescription: true,
    });
    if (!picked) return undefined;
    if (picked.uri) return picked.uri;
    const chosen = await vscode.window.showOpenDialog({ canSelectMany: false, openLabel: 'Compare With',
      filters: { Sessions: ['rlog', 'jsonl', 'json'] } });
    return chosen?.[0];
  }

  async function masked(c: LanguageClient, uri: vscode.Uri): Promise<MaskedView> {
    return c.sendRequest<MaskedView>(maskedViewRequest, { textDocument: { uri: uri.toString() } });
  }

  async function compareWith(resource?: unknown): Promise<void> {
    const first = sessionOf(resource);
    if (!first) {
      void vscode.window.showWarningMessage('rlog: open a session (an .rlog log, a Claude Code transcript …) to compare it with another.');
      return;
    }
    const c = running();
    if (!c) {
      void vscode.window.showErrorMessage('rlog: comparing sessions needs the rlog language server, which is not running.');
      return;
    }
    const second = await pickOther(first);
    if (!second) return;
    let a: MaskedView;
    let b: MaskedView;
    try {
      [a, b] = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'rlog: reading both sessions' },
        () => Promise.all([masked(c, first), masked(c, second)]));
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      output.appendLine(`rlog: Compare With: ${msg}`);
      void vscode.window.showErrorMessage(`rlog: cannot compare: ${msg}`);
      return;
    }
    const left = vscode.Uri.parse(maskedUri(first.path, 'a'));
    const right = vscode.Uri.parse(maskedUri(second.path, 'b'));
    for (const [u, v] of [[left, a], [right, b]] as const) {
      texts.set(u.toString(), v.text);
      changed.fire(u);
    }
    await vscode.commands.executeCommand('vscode.diff', left, right,
      `${a.name} ↔ ${b.name} (masked)`, { preview: false });
  }

  const changed = new vscode.EventEmitter<vscode.Uri>();
  return [
    changed,
    vscode.commands.registerCommand(compareWithCommand, compareWith),
    vscode.workspace.registerTextDocumentContentProvider(maskedScheme, {
      onDidChange: changed.event,
      provideTextDocumentContent: (uri) => texts.get(uri.toString()) ?? '',
    }),
    vscode.workspace.onDidCloseTextDocument((d) => {
      if (d.uri.scheme === maskedScheme) texts.delete(d.uri.toString());
    }),
  ];
}

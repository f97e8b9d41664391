// Follow mode: keeps the end of a growing log in view, as `tail -f` does.
// An agent writes its log while it runs; VS Code reloads the file when it
// changes on disk (while it has no unsaved edits), and with Follow on each
// editor showing the log scrolls to its last line. It is set per log, and
// shown and toggled in the status bar, for rlog documents only.
import * as vscode from 'vscode';

/** URIs (as strings) of the logs being followed. */
const following = new Set<string>();
let item: vscode.StatusBarItem;

export function registerFollow(context: vscode.ExtensionContext): void {
  item = vscode.window.createStatusBarItem('rlog.follow', vscode.StatusBarAlignment.Right, 1);
  item.name = 'rlog Follow';
  item.command = 'rlog.toggleFollow';
  context.subscriptions.push(
    item,
    vscode.commands.registerCommand('rlog.toggleFollow', toggle),
    vscode.window.onDidChangeActiveTextEditor(() => update()),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (following.has(e.document.uri.toString()) && e.contentChanges.length > 0) reveal(e.document);
    }),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      following.delete(doc.uri.toString());
    }),
  );
  update();
}

function toggle(): void {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'rlog') {
    void vscode.window.showInformationMessage('rlog: Follow works on rlog logs; open one first.');
    return;
  }
  const key = editor.document.uri.toString();
  if (following.has(key)) {
    following.delete(key);
  } else {
    following.add(key);
    reveal(editor.document);
  }
  update();
}

/** reveal scrolls every editor showing doc to its last line. */
function reveal(doc: vscode.TextDocument): void {
  const last = doc.lineAt(doc.lineCount - 1).range.end;
  for (const editor of vscode.window.visibleTextEditors) {
    if (editor.document === doc) {
      editor.revealRange(new vscode.Range(last, last), vscode.TextEditorRevealType.Default);
    }
  }
}

function update(): void {
  const doc = vscode.window.activeTextEditor?.document;
  if (!doc || doc.languageId !== 'rlog') {
    item.hide();
    return;
  }
  if (following.has(doc.uri.toString())) {
    item.text = '$(arrow-down) Following';
    item.tooltip = 'Follow is on: the end of this log stays in view as it grows. Click to turn it off.';
  } else {
    item.text = '$(debug-pause) Follow';
    item.tooltip = 'Follow is off. Click to keep the end of this log in view as it grows (like tail -f).';
  }
  item.show();
}

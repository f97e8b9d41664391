// The manifest against the grammar, the language configuration and the server.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import test from 'node:test';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

const here = dirname(fileURLToPath(import.meta.url));
const ext = join(here, '..', '..');
const root = join(ext, '..', '..');
const pkg = JSON.parse(readFileSync(join(ext, 'package.json'), 'utf8'));
const grammarText = readFileSync(join(root, 'grammar', 'rlog.tmLanguage.json'), 'utf8');
const langConf = JSON.parse(readFileSync(join(ext, 'language-configuration.json'), 'utf8'));

test('the packaged grammar is the repository grammar', () => {
  const g = pkg.contributes.grammars[0];
  assert.equal(g.scopeName, 'source.rlog');
  assert.equal(readFileSync(join(ext, g.path), 'utf8'), grammarText, 'run npm run compile');
});

test('every semantic token type of the server maps onto a scope of the grammar', () => {
  // The legend is analysis.SemanticTypeNames; read it from the Go source.
  const src = readFileSync(join(root, 'analysis', 'semantic.go'), 'utf8');
  const m = /SemanticTypeNames = \[\]string\{([^}]*)\}/.exec(src);
  assert.ok(m, 'SemanticTypeNames not found in analysis/semantic.go');
  const legend = [...m[1].matchAll(/"([^"]+)"/g)].map((x) => x[1]);
  const scopes = pkg.contributes.semanticTokenScopes[0].scopes;
  // Plain types cover exactly the legend; "type.modifier" keys refine them.
  const plain = Object.keys(scopes).filter((k) => !k.includes('.'));
  assert.deepEqual(plain.sort(), [...legend].sort(), 'semanticTokenScopes must cover exactly the legend');
  const mods = /SemanticModifierNames = \[\]string\{([^}]*)\}/.exec(src);
  const modifiers = new Set([...(mods ? mods[1] : '').matchAll(/"([^"]+)"/g)].map((x) => x[1]));
  for (const k of Object.keys(scopes).filter((k) => k.includes('.'))) {
    const [type, ...rest] = k.split('.');
    assert.ok(legend.includes(type) && rest.every((m) => modifiers.has(m)), `${k} is not a legend type with legend modifiers`);
  }
  for (const [type, [scope]] of Object.entries(scopes)) {
    // A mapped scope is one the grammar uses, or the parent of one (keyword.control.rlog).
    const base = scope.replace(/\.rlog$/, '.');
    assert.ok(grammarText.includes(`"${scope}"`) || grammarText.includes(`"${base}`) ||
      new RegExp(`"${base.replace(/\./g, '\\.')}[a-z-]+\\.rlog"`).test(grammarText),
      `${type} → ${scope} is not a scope of the grammar`);
  }
});

test('every custom semantic token modifier of the server is declared and mapped', () => {
  const src = readFileSync(join(root, 'analysis', 'semantic.go'), 'utf8');
  const m = /SemanticModifierNames = \[\]string\{([^}]*)\}/.exec(src);
  assert.ok(m, 'SemanticModifierNames not found in analysis/semantic.go');
  const standard = new Set(['declaration', 'definition', 'readonly', 'static', 'deprecated', 'abstract', 'async',
    'modification', 'documentation', 'defaultLibrary']);
  const custom = [...m[1].matchAll(/"([^"]+)"/g)].map((x) => x[1]).filter((x) => !standard.has(x));
  const declared = (pkg.contributes.semanticTokenModifiers || []).map((x) => x.id);
  assert.deepEqual(declared.sort(), custom.sort(), 'declare the server\'s own modifiers in contributes.semanticTokenModifiers');
  const scopes = pkg.contributes.semanticTokenScopes[0].scopes;
  for (const mod of custom) {
    assert.ok(Object.keys(scopes).some((k) => k.split('.').includes(mod)), `no semanticTokenScopes entry uses the modifier ${mod}`);
  }
});

// serverSettings is the Go source of the settings the server reads: its
// own and rlog's.
function serverSettings() {
  return [join(root, 'lsp', 'settings.go'), join(root, 'lsp', 'rlog', 'settings.go')].map((f) => readFileSync(f, 'utf8')).join('\n');
}

test('the settings are the ones the server reads', () => {
  const props = pkg.contributes.configuration.properties;
  // The JSON names under "rlog", and DefaultSettings: the server's own
  // (lsp/settings.go) and rlog's (lsp/rlog/settings.go).
  const src = serverSettings();
  for (const [key, goField] of [['rlog.disabledCodes', 'disabledCodes'], ['rlog.outline.maxItems', 'maxItems'],
    ['rlog.diagnostics.maxPerDocument', 'maxPerDocument'], ['rlog.diagnostics.debounceMs', 'debounceMs']]) {
    assert.ok(props[key], `${key} missing`);
    assert.ok(src.includes(`json:"${goField}"`), `the server has no ${goField} setting any more`);
  }
  const def = [...src.matchAll(/DefaultSettings\([^)]*\) Settings \{([\s\S]*?)\n\}/g)].map((m) => m[1]).join('\n');
  assert.match(def, new RegExp(`MaxItems: ${props['rlog.outline.maxItems'].default}\\b`));
  assert.match(def, new RegExp(`MaxPerDocument: ${props['rlog.diagnostics.maxPerDocument'].default}\\b`));
  assert.match(def, new RegExp(`DebounceMs: ${props['rlog.diagnostics.debounceMs'].default}\\b`));
  assert.equal(props['rlog.trace.server'].default, 'off');
  assert.equal(props['rlog.server.path'].default, '');
});

test('the word pattern keeps ids, uuids and timestamps whole', () => {
  const re = new RegExp(langConf.wordPattern, 'g');
  const words = (s) => s.match(re);
  assert.deepEqual(words('o: id=toolu_01ABC-def → [ok]'), ['o', 'id', 'toolu_01ABC-def', 'ok']);
  assert.deepEqual(words('parent=f369fce3-9c36-4e39-ba0d-5f347f40a082'), ['parent', 'f369fce3-9c36-4e39-ba0d-5f347f40a082']);
  assert.deepEqual(words('@start ts=2025-12-19T20:29:02.123+02:00'), ['start', 'ts', '2025-12-19T20:29:02.123+02:00']);
  assert.deepEqual(words('x:探索 session-id=a'), ['x', '探索', 'session-id', 'a']);
  assert.equal(langConf.comments.lineComment, '#');
});

test('commands are declared and reachable', () => {
  const cmds = pkg.contributes.commands.map((c) => c.command).sort();
  assert.deepEqual(cmds, ['rlog.compareWith', 'rlog.convertFile', 'rlog.openView', 'rlog.restartServer', 'rlog.sessions.compareWith', 'rlog.sessions.convert', 'rlog.sessions.open',
    'rlog.sessions.redact', 'rlog.sessions.refresh', 'rlog.sessions.showSessionView', 'rlog.sessionsTouchingFile',
    'rlog.showFullRecord', 'rlog.showOutput', 'rlog.showSessionView', 'rlog.toggleFollow']);
  const src = readdirSync(join(ext, 'src')).map((f) => readFileSync(join(ext, 'src', f), 'utf8')).join('\n');
  for (const c of cmds.filter((c) => c !== 'rlog.showSessionView' && c !== 'rlog.openView' && c !== 'rlog.compareWith')) assert.ok(src.includes(`registerCommand('${c}'`), `${c} is not registered`);
  // The view's command is registered by its module, under the name it exports.
  assert.ok(readFileSync(join(ext, 'src', 'views.ts'), 'utf8').includes('registerCommand(openViewCommand,'), 'rlog.openView is not registered');
  // Compare With… is registered by its module, under the name it exports.
  const compare = readFileSync(join(ext, 'src', 'compare.ts'), 'utf8');
  assert.ok(compare.includes(`compareWithCommand = 'rlog.compareWith'`) && compare.includes('registerCommand(compareWithCommand,'), 'rlog.compareWith is not registered');
  // The session view's command is registered by its module, under the name lens.ts gives it.
  const view = readFileSync(join(ext, 'src', 'sessionView.ts'), 'utf8');
  assert.ok(view.includes('registerCommand(showSessionView,'), 'rlog.showSessionView is not registered');
  assert.equal(require('../../out/lens.js').showSessionView, 'rlog.showSessionView');
});

test('Open as rlog View is offered where session files are: the palette, the explorer and the editor title', () => {
  const menus = pkg.contributes.menus;
  const entry = (menu) => menus[menu].find((m) => m.command === 'rlog.openView');
  for (const menu of ['commandPalette', 'explorer/context', 'editor/title/context']) {
    assert.match(entry(menu)?.when ?? '', /resourceExtname == \.jsonl \|\| resourceExtname == \.json/, menu);
  }
  // The editor title's button only on files the server said are sessions (by their content).
  assert.match(entry('editor/title').when, /resourcePath in rlog\.sessionFiles/);
  assert.ok(readFileSync(join(ext, 'src', 'views.ts'), 'utf8').includes(`'setContext', 'rlog.sessionFiles'`));
  // The extension starts for JSON Lines files and restored views, not only in workspaces with logs.
  assert.ok(pkg.activationEvents.includes('onLanguage:jsonl') && pkg.activationEvents.includes('onFileSystem:rlog-view'));
});

test('Compare With… is offered on sessions: the palette, the explorer and the editor title', () => {
  const menus = pkg.contributes.menus;
  const entry = (menu) => menus[menu].find((m) => m.command === 'rlog.compareWith');
  for (const menu of ['commandPalette', 'explorer/context', 'editor/title/context']) {
    assert.match(entry(menu)?.when ?? '', /resourceExtname == \.jsonl \|\| resourceExtname == \.json/, menu);
  }
  assert.match(entry('explorer/context').when, /resourceExtname == \.rlog/);
});

test('the inlay hint settings are the ones the server reads, with its defaults', () => {
  const props = pkg.contributes.configuration.properties;
  const src = serverSettings();
  assert.ok(src.includes('`json:"inlayHints"`'), 'the server has no inlayHints settings any more');
  for (const key of ['latency', 'gaps', 'gapThresholdSeconds']) {
    assert.ok(props[`rlog.inlayHints.${key}`], `rlog.inlayHints.${key} missing`);
    assert.ok(src.includes(`json:"${key}"`), `the server has no ${key} setting`);
  }
  const def = /InlayHints:\s*InlayHintSettings\{([^}]*)\}/.exec(src);
  assert.ok(def, 'DefaultSettings has no InlayHints');
  assert.match(def[1], new RegExp(`Latency: ${props['rlog.inlayHints.latency'].default}\\b`));
  assert.match(def[1], new RegExp(`Gaps: ${props['rlog.inlayHints.gaps'].default}\\b`));
  assert.match(def[1], new RegExp(`GapThresholdSeconds: ${props['rlog.inlayHints.gapThresholdSeconds'].default}\\b`));
  // And the extension passes them on at start.
  const ext_ = readFileSync(join(ext, 'src', 'extension.ts'), 'utf8');
  for (const key of ['inlayHints.latency', 'inlayHints.gaps', 'inlayHints.gapThresholdSeconds']) assert.ok(ext_.includes(`'${key}'`), key);
});

test('the server names the lens command and the request as the extension expects', () => {
  const lens = require('../../out/lens.js');
  const go = readFileSync(join(root, 'lsp', 'rlog', 'insight.go'), 'utf8');
  assert.ok(go.includes(`CommandShowSessionView = "${lens.serverShowSessionView}"`), 'the server\'s lens command changed');
  assert.ok(go.includes(`MethodSessionReport = "${lens.sessionReportRequest}"`), 'the server\'s request changed');
});

test('the Sessions view: in the explorer, with its actions on sessions and the server\'s names', () => {
  const view = pkg.contributes.views.explorer.find((v) => v.id === 'rlog.sessions');
  assert.ok(view, 'no Sessions view in the explorer');
  assert.ok(readFileSync(join(ext, 'src', 'sessions.ts'), 'utf8').includes("sessionsViewId = 'rlog.sessions'"));
  assert.ok(pkg.activationEvents.includes('onView:rlog.sessions'));
  const items = pkg.contributes.menus['view/item/context'].filter((m) => m.when.includes('view == rlog.sessions && viewItem == session'));
  assert.deepEqual(items.map((m) => m.command).sort(), ['rlog.sessions.compareWith', 'rlog.sessions.convert', 'rlog.sessions.redact', 'rlog.sessions.showSessionView']);
  // The request and the notification are the server's (lsp/rlog/sessions.go).
  const rows = require('../../out/sessionRows.js');
  const go = readFileSync(join(root, 'lsp', 'rlog', 'sessions.go'), 'utf8');
  assert.ok(go.includes(`MethodSessions        = "${rows.sessionsRequest}"`), rows.sessionsRequest);
  assert.ok(go.includes(`MethodSessionsChanged = "${rows.sessionsChanged}"`), rows.sessionsChanged);
});

// The session view's lens command and messages.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import test from 'node:test';

const require = createRequire(import.meta.url);
const { toClientCommand, placeOf, revealLine, showSessionView, serverShowSessionView } = require('../../out/lens.js');

test('the lenses open the webview, not the server\'s browser page', () => {
  const cmd = { title: 'Session: 4m 0s', command: serverShowSessionView, arguments: [{ uri: 'file:///a.rlog', line: 8 }] };
  assert.equal(toClientCommand(cmd), cmd);
  assert.equal(cmd.command, showSessionView);
  assert.deepEqual(cmd.arguments, [{ uri: 'file:///a.rlog', line: 8 }]);
  const other = { title: 'x', command: 'rlog-ls.convert' };
  assert.equal(toClientCommand(other).command, 'rlog-ls.convert');
  assert.equal(toClientCommand(undefined), undefined);
});

test('a lens argument is {uri, line}', () => {
  assert.deepEqual(placeOf({ uri: 'file:///a.rlog', line: 3 }), { uri: 'file:///a.rlog', line: 3 });
  assert.deepEqual(placeOf({ uri: 'untitled:Untitled-1' }), { uri: 'untitled:Untitled-1', line: 0 });
  assert.deepEqual(placeOf({ uri: 'file:///a.rlog', line: -2 }), { uri: 'file:///a.rlog', line: 0 });
  for (const bad of [undefined, null, 'file:///a.rlog', { line: 2 }, { uri: '' }, { uri: 3 }]) assert.equal(placeOf(bad), undefined);
});

test('the view asks for 1-based lines; the editor gets 0-based ones inside the document', () => {
  assert.equal(revealLine({ type: 'reveal', line: 38 }, 50), 37);
  assert.equal(revealLine({ type: 'reveal', line: 1 }, 50), 0);
  assert.equal(revealLine({ type: 'reveal', line: 99 }, 50), 49);
  for (const bad of [null, 'reveal', { type: 'reveal' }, { type: 'reveal', line: 0 }, { type: 'reveal', line: 2.5 }, { type: 'ready' }, { type: 'reveal', line: '3' }]) {
    assert.equal(revealLine(bad, 50), -1, JSON.stringify(bad));
  }
});

// Views: the server's edits applied to a view's text, and the names the
// extension and the server share.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import test from 'node:test';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const view = require('../../out/view.js');
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

const edit = (l1, c1, l2, c2, newText) => ({ range: { start: { line: l1, character: c1 }, end: { line: l2, character: c2 } }, newText });

test('a growing session: the header totals and the end change', () => {
  const before = '---\nformat: rlog/1\ntokens_total_in: 12\n---\nu: hi\n@end tokens_in=12\n';
  const after = view.applyEdits(before, [edit(2, 17, 2, 19, '15'), edit(5, 0, 6, 0, 'a: ok\n@end tokens_in=15\n')], view.offsetIn(before));
  assert.equal(after, '---\nformat: rlog/1\ntokens_total_in: 15\n---\nu: hi\na: ok\n@end tokens_in=15\n');
});

test('positions count UTF-16 units, as the server does', () => {
  const text = 'a: 😀 é x\nb\n';
  // The x is at UTF-16 column 8 (the emoji is two units).
  assert.equal(view.applyEdits(text, [edit(0, 8, 0, 9, 'y')], view.offsetIn(text)), 'a: 😀 é y\nb\n');
  // Past the end of a line or of the text: clamped.
  assert.equal(view.applyEdits(text, [edit(1, 99, 7, 0, '!')], view.offsetIn(text)), 'a: 😀 é x\nb!');
});

test('edits are applied in order, whatever order they come in, and overlapping ones are refused', () => {
  const text = 'abcdef';
  const at = view.offsetIn(text);
  assert.equal(view.applyEdits(text, [edit(0, 4, 0, 5, 'E'), edit(0, 0, 0, 1, 'A')], at), 'AbcdEf');
  assert.throws(() => view.applyEdits(text, [edit(0, 0, 0, 3, 'x'), edit(0, 2, 0, 4, 'y')], at), /overlapping/);
});

test('a line ending in CRLF ends before its CR', () => {
  const text = 'ab\r\ncd';
  assert.equal(view.offsetIn(text)({ line: 0, character: 5 }), 2);
  assert.equal(view.offsetIn(text)({ line: 1, character: 1 }), 5);
});

test('session candidates and the loss summary', () => {
  assert.ok(view.isSessionCandidate('/home/me/.claude/projects/-home-me-shop/3f1c9a2e.jsonl'));
  assert.ok(view.isSessionCandidate('/t/run.ATIF.JSON'));
  assert.ok(!view.isSessionCandidate('/t/a.rlog'));
  assert.equal(view.lossSummary('claude -> rlog: 39 events, 203 losses of 4 kinds\n  unknown_record_passthrough: …\n'), '39 events, 203 losses of 4 kinds');
});

test('the server names the scheme, the requests and the notification as the extension does', () => {
  const go = readFileSync(join(root, 'lsp', 'rlog', 'view.go'), 'utf8');
  assert.ok(go.includes(`ViewScheme = "${view.viewScheme}"`), 'the view scheme changed');
  assert.ok(go.includes(`MethodSessionView = "${view.sessionViewRequest}"`), 'rlog/sessionView changed');
  assert.ok(go.includes(`MethodSessionFormat = "${view.sessionFormatRequest}"`), 'rlog/sessionFormat changed');
  assert.ok(go.includes(`MethodSessionViewChanged = "${view.sessionViewChanged}"`), 'rlog/sessionViewChanged changed');
  for (const field of ['uri', 'source', 'format', 'description', 'text', 'losses', 'joined']) {
    assert.ok(go.includes(`json:"${field}"`), `the view's ${field} is not in the server's answer`);
  }
});

test('the masked views of Compare With…: their URIs, and the request the server answers', () => {
  const masked = require('../../out/masked.js');
  assert.equal(masked.maskedUri('/tmp/a b/s.jsonl', 'a'), 'rlog-masked:///tmp/a%20b/s.jsonl.rlog?a');
  assert.equal(masked.maskedUri('/tmp/s.rlog', 'b'), 'rlog-masked:///tmp/s.rlog.rlog?b');
  const go = readFileSync(join(root, 'lsp', 'rlog', 'mask.go'), 'utf8');
  assert.ok(go.includes(`MethodMaskedView = "${masked.maskedViewRequest}"`), 'rlog/maskedView changed');
  for (const field of ['name', 'text']) assert.ok(go.includes(`json:"${field}"`), `the masked view's ${field} is not in the server's answer`);
});

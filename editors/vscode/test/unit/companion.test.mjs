// Which JSON files the server gets: companions of a log, found by name.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import test from 'node:test';

const require = createRequire(import.meta.url);
const { logOf, recordUri } = require('../../out/companion.js');

const files = (list) => (p) => list.includes(p);

test('a JSONL or JSON file beside a log of the same name is its companion', () => {
  const exists = files(['/l/222000-fix.rlog', '/l/1610-list.rlog']);
  assert.equal(logOf('/l/222000-fix.jsonl', exists), '/l/222000-fix.rlog');
  assert.equal(logOf('/l/1610-list.json', exists), '/l/1610-list.rlog');
  assert.equal(logOf('/l/222000-fix.sub-DZYW3CfJ.jsonl', exists), '/l/222000-fix.rlog');
});

test('a log converted by rlog-ls keeps the transcript as its companion', () => {
  assert.equal(logOf('/l/5c1e.jsonl', files(['/l/5c1e.converted.rlog'])), '/l/5c1e.converted.rlog');
  assert.equal(logOf('/p/5c1e/subagents/agent-a4.jsonl', files(['/p/5c1e.converted.rlog'])), '/p/5c1e.converted.rlog');
});

test('other JSON files are not', () => {
  const exists = files(['/l/a.rlog']);
  assert.equal(logOf('/l/package.json', exists), undefined);
  assert.equal(logOf('/l/a.rlog', exists), undefined);
  assert.equal(logOf('/l/a.trajectory.json', exists), undefined);
});

test('Claude Code subagent transcripts belong to their session', () => {
  assert.equal(logOf('/p/5c1e/subagents/agent-a4.jsonl', files(['/p/5c1e.rlog'])), '/p/5c1e.rlog');
  assert.equal(logOf('/p/subagents/agent-a4.jsonl', files([]), () => ['x.jsonl', 'b.rlog', 'a.rlog']), '/p/a.rlog');
  assert.equal(logOf('/p/subagents/agent-a4.jsonl', files([]), () => ['x.jsonl']), undefined);
});

test('a record opens as a document named after its line', () => {
  const rec = { title: 'Output of Read', text: 'x', language: 'text', line: 18, location: { uri: 'file:///l/a.jsonl', range: { start: { line: 3, character: 0 } } } };
  assert.equal(recordUri('/l/222000-fix.rlog', rec), 'rlog-record:/222000-fix/line 19 - Output%20of%20Read.txt');
  assert.equal(recordUri('/l/a.rlog', { ...rec, title: 'Input of mcp__x/y', language: 'json' }), 'rlog-record:/a/line 19 - Input%20of%20mcp__x_y.json');
});

// The Sessions view's rows: grouped by day, and what each row shows.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import test from 'node:test';

const require = createRequire(import.meta.url);
const rows = require('../../out/sessionRows.js');

const row = (start, extra = {}) => ({
  file: '/p/s.jsonl', format: 'claude', agent: 'claude-code', id: 'abc', title: 'Fix the build', cwd: '/p',
  start, end: start, duration_ms: 2400, tokens: { in: 9, out: 86, cached: 27000, cache_create: 452 },
  cost_usd: 0.009416, tool_calls: 2, errors: 0, subagents: 0, parent: '', children: [], size: 10, modified: '2026-11-01T00:00:00Z', ...extra,
});

test('rows group by local day, newest first, as the server sends them', () => {
  const now = new Date(2026, 10, 27, 15, 0);
  const days = rows.byDay([
    row(new Date(2026, 10, 27, 14, 0).toISOString()),
    row(new Date(2026, 10, 27, 9, 0).toISOString()),
    row(new Date(2026, 10, 26, 23, 59).toISOString()),
    row(new Date(2026, 10, 20, 8, 0).toISOString()),
    row(null, { modified: new Date(2026, 10, 19, 8, 0).toISOString() }),
  ], now);
  assert.deepEqual(days.map((d) => [d.label, d.rows.length]), [['Today', 2], ['Yesterday', 1], ['2026-11-20', 1], ['2026-11-19', 1]]);
});

test('a row shows its time, agent, duration, calls, errors, sub-agents and cost', () => {
  const r = row(new Date(2026, 10, 27, 9, 5).toISOString(), { errors: 1, subagents: 2 });
  assert.equal(rows.description(r), '09:05 · claude-code · 2.4s · 2 calls · 1 error · 2 sub-agents · $0.0094');
  assert.equal(rows.label(r), 'Fix the build');
  assert.equal(rows.label(row(null, { title: '' })), 's.jsonl');
  assert.match(rows.tooltip(r), /tokens 9 in, 86 out, 27,000 cached, 452 cache writes/);
  assert.equal(rows.durationText(750), '750ms');
  assert.equal(rows.durationText(175000), '2m 55s');
  assert.equal(rows.durationText(3900000), '1h 5m');
  assert.ok(rows.isRlog(row(null, { format: 'rlog' })) && !rows.isRlog(row(null)));
});

test('a sub-agent is named by its type and id, else its file', () => {
  assert.equal(rows.childLabel({ file: '/p/s/subagents/agent-a1.jsonl', call_id: 'toolu_1', agent_id: 'a1', type: 'Explore' }), 'Explore a1');
  assert.equal(rows.childLabel({ file: '/p/s/subagents/agent-a1.jsonl', call_id: '', agent_id: '', type: '' }), 'agent-a1.jsonl');
});

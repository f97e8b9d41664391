// Finding the server binary: the setting, then PATH, then $GOPATH/bin.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import test from 'node:test';

const require = createRequire(import.meta.url);
const { findServer, notFoundMessage, installCommand } = require('../../out/server.js');

function env(files, vars = {}) {
  return {
    platform: 'linux',
    env: { PATH: '/usr/local/bin:/usr/bin', ...vars },
    home: '/home/u',
    isExecutable: (p) => files.includes(p),
  };
}

test('the setting wins when it names an executable', () => {
  const r = findServer('/opt/rlog-ls', env(['/opt/rlog-ls', '/usr/bin/rlog-ls']));
  assert.deepEqual(r, { path: '/opt/rlog-ls', source: 'rlog.server.path' });
});

test('a setting with ~ is expanded', () => {
  const r = findServer('~/bin/rlog-ls', env(['/home/u/bin/rlog-ls']));
  assert.equal(r.path, '/home/u/bin/rlog-ls');
});

test('a bare command name in the setting is looked up on PATH', () => {
  const r = findServer('rlog-ls-dev', env(['/usr/bin/rlog-ls-dev']));
  assert.deepEqual(r, { path: '/usr/bin/rlog-ls-dev', source: 'rlog.server.path' });
});

test('a setting that names a missing file is reported, not silently replaced', () => {
  const r = findServer('/nope/rlog-ls', env(['/usr/bin/rlog-ls']));
  assert.equal(r.badSetting, '/nope/rlog-ls');
  assert.match(notFoundMessage(r), /rlog\.server\.path was not found or is not executable: \/nope\/rlog-ls/);
});

test('PATH comes before $GOPATH/bin', () => {
  const r = findServer('', env(['/usr/bin/rlog-ls', '/home/u/go/bin/rlog-ls']));
  assert.deepEqual(r, { path: '/usr/bin/rlog-ls', source: 'PATH' });
});

test('GOPATH entries, then ~/go/bin', () => {
  assert.deepEqual(findServer(undefined, env(['/g2/bin/rlog-ls'], { GOPATH: '/g1:/g2' })),
    { path: '/g2/bin/rlog-ls', source: '$GOPATH/bin' });
  assert.deepEqual(findServer(undefined, env(['/home/u/go/bin/rlog-ls'])),
    { path: '/home/u/go/bin/rlog-ls', source: '$GOPATH/bin' });
  assert.deepEqual(findServer(undefined, env(['/gb/rlog-ls'], { GOBIN: '/gb' })),
    { path: '/gb/rlog-ls', source: '$GOPATH/bin' });
});

test('windows looks for rlog-ls.exe with ; separators', () => {
  const e = { ...env(['C:\\go\\bin/rlog-ls.exe']), platform: 'win32', env: { Path: 'C:\\a;C:\\go\\bin' } };
  assert.equal(findServer('', e).source, 'PATH');
});

test('nothing found: the message says where it looked and how to install', () => {
  const r = findServer('', env([]));
  assert.deepEqual(r.tried, ['rlog.server.path (not set)', 'PATH', '/home/u/go/bin']);
  const msg = notFoundMessage(r);
  assert.ok(msg.includes(installCommand), msg);
  assert.match(msg, /looked in rlog\.server\.path \(not set\), PATH, \/home\/u\/go\/bin/);
});

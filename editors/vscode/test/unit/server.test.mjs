// Finding the server binary: the setting, then the extension's own server,
// then PATH, then $GOPATH/bin.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import test from 'node:test';

const require = createRequire(import.meta.url);
const { findServer, notFoundMessage, releasesUrl, goInstall } = require('../../out/server.js');

// The extension's server folder in these tests.
const ext = '/ext/server';

// env is a machine with the executables `files` (and the non-executable
// files `plain`).
function env(files, vars = {}, plain = []) {
  return {
    platform: 'linux',
    env: { PATH: '/usr/local/bin:/usr/bin', ...vars },
    home: '/home/u',
    isExecutable: (p) => files.includes(p),
    exists: (p) => files.includes(p) || plain.includes(p),
  };
}

test('the setting wins when it names an executable', () => {
  const r = findServer('/opt/rlog-ls', ext, env(['/opt/rlog-ls', '/ext/server/rlog-ls', '/usr/bin/rlog-ls']));
  assert.deepEqual(r, { path: '/opt/rlog-ls', source: 'rlog.server.path' });
});

test('a setting with ~ is expanded', () => {
  const r = findServer('~/bin/rlog-ls', ext, env(['/home/u/bin/rlog-ls']));
  assert.equal(r.path, '/home/u/bin/rlog-ls');
});

test('a bare command name in the setting is looked up on PATH', () => {
  const r = findServer('rlog-ls-dev', ext, env(['/usr/bin/rlog-ls-dev', '/ext/server/rlog-ls']));
  assert.deepEqual(r, { path: '/usr/bin/rlog-ls-dev', source: 'rlog.server.path' });
});

test('a setting that names a missing file is reported, not silently replaced by the bundled server', () => {
  const r = findServer('/nope/rlog-ls', ext, env(['/ext/server/rlog-ls', '/usr/bin/rlog-ls']));
  assert.equal(r.badSetting, '/nope/rlog-ls');
  assert.match(notFoundMessage(r), /rlog\.server\.path was not found or is not executable: \/nope\/rlog-ls/);
});

test('the server inside the extension comes before PATH and $GOPATH/bin', () => {
  const r = findServer('', ext, env(['/ext/server/rlog-ls', '/usr/bin/rlog-ls', '/home/u/go/bin/rlog-ls']));
  assert.deepEqual(r, { path: '/ext/server/rlog-ls', source: 'the extension' });
});

test('the Windows package bundles rlog-ls.exe', () => {
  const e = { ...env(['C:\\ext\\server/rlog-ls.exe', 'C:\\a/rlog-ls.exe']), platform: 'win32', env: { Path: 'C:\\a' } };
  assert.deepEqual(findServer(undefined, 'C:\\ext\\server', e), { path: 'C:\\ext\\server/rlog-ls.exe', source: 'the extension' });
});

test('without a bundled server (the platform-neutral package): PATH comes before $GOPATH/bin', () => {
  const r = findServer('', ext, env(['/usr/bin/rlog-ls', '/home/u/go/bin/rlog-ls']));
  assert.deepEqual(r, { path: '/usr/bin/rlog-ls', source: 'PATH' });
});

test('GOPATH entries, then ~/go/bin', () => {
  assert.deepEqual(findServer(undefined, ext, env(['/g2/bin/rlog-ls'], { GOPATH: '/g1:/g2' })),
    { path: '/g2/bin/rlog-ls', source: '$GOPATH/bin' });
  assert.deepEqual(findServer(undefined, ext, env(['/home/u/go/bin/rlog-ls'])),
    { path: '/home/u/go/bin/rlog-ls', source: '$GOPATH/bin' });
  assert.deepEqual(findServer(undefined, ext, env(['/gb/rlog-ls'], { GOBIN: '/gb' })),
    { path: '/gb/rlog-ls', source: '$GOPATH/bin' });
});

test('windows looks for rlog-ls.exe with ; separators', () => {
  const e = { ...env(['C:\\go\\bin/rlog-ls.exe']), platform: 'win32', env: { Path: 'C:\\a;C:\\go\\bin' } };
  assert.equal(findServer('', ext, e).source, 'PATH');
});

test('nothing found: the message says where it looked and where to get the server', () => {
  const r = findServer('', ext, env([]));
  assert.deepEqual(r.tried, ['rlog.server.path (not set)', 'the extension (this package has no server)', 'PATH', '/home/u/go/bin']);
  const msg = notFoundMessage(r);
  assert.ok(msg.includes(releasesUrl), msg);
  assert.ok(msg.includes(goInstall), msg);
  assert.match(msg, /install the package for your platform/);
  assert.match(msg, /looked in rlog\.server\.path \(not set\), the extension \(this package has no server\), PATH, \/home\/u\/go\/bin/);
});

test('a bundled server that cannot be run is said so, and PATH is still tried', () => {
  const r = findServer('', ext, env([], {}, ['/ext/server/rlog-ls']));
  assert.equal(r.bundledNotExecutable, '/ext/server/rlog-ls');
  assert.match(notFoundMessage(r), /inside the extension cannot be run: \/ext\/server\/rlog-ls is not executable/);
  assert.deepEqual(findServer('', ext, env(['/usr/bin/rlog-ls'], {}, ['/ext/server/rlog-ls'])),
    { path: '/usr/bin/rlog-ls', source: 'PATH' });
});

test('no extension folder given: the setting, PATH and $GOPATH/bin only', () => {
  assert.deepEqual(findServer('', undefined, env([])).tried, ['rlog.server.path (not set)', 'PATH', '/home/u/go/bin']);
});

// Finding the rlog-ls binary. Kept free of the vscode module so that it can be
// unit-tested with plain Node.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/** Where releases (the binary, and the extension for each platform) are published. */
export const releasesUrl = 'https://github.com/rlog-ls/rlog-ls/releases';

/** How Go users build the server from a clone (the module path is not published yet). */
export const goInstall = 'go install ./cmd/rlog-ls';

/** The folder of the extension's own server, inside its package (scripts/release puts it there). */
export const bundledFolder = 'server';

export interface Found {
  path: string;
  /** Where it was found: "rlog.server.path", "the extension", "PATH" or "$GOPATH/bin". */
  source: string;
}

export interface NotFound {
  /** The places looked in, in order, for the message. */
  tried: string[];
  /** A setting that names a file that is not there, if any. */
  badSetting?: string;
  /** The extension's own server when it is there but cannot be run. */
  bundledNotExecutable?: string;
}

export interface Env {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  home: string;
  isExecutable(p: string): boolean;
  exists(p: string): boolean;
}

export function realEnv(): Env {
  return {
    platform: process.platform,
    env: process.env,
    home: os.homedir(),
    isExecutable(p: string): boolean {
      try {
        const st = fs.statSync(p);
        if (!st.isFile()) return false;
        if (process.platform === 'win32') return true;
        fs.accessSync(p, fs.constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
    exists(p: string): boolean {
      return fs.existsSync(p);
    },
  };
}

function expandHome(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/') || p.startsWith('~\\')) return path.join(home, p.slice(2));
  return p;
}

/**
 * findServer looks for the server: the rlog.server.path setting when it is
 * set (a path, or a bare command name looked up on PATH; one that is not
 * there is reported, never silently replaced), then the server bundled in
 * the extension's package (bundledDir; the platform packages have one, the
 * platform-neutral package has not), then rlog-ls on PATH, then in
 * $GOPATH/bin (each GOPATH entry, or ~/go/bin), where `go install` puts it.
 */
export function findServer(setting: string | undefined, bundledDir: string | undefined, e: Env = realEnv()): Found | NotFound {
  const exe = e.platform === 'win32' ? 'rlog-ls.exe' : 'rlog-ls';
  const sep = e.platform === 'win32' ? ';' : ':';
  const pathDirs = (e.env.PATH ?? e.env.Path ?? '').split(sep).filter((d) => d !== '');
  const tried: string[] = [];
  const configured = (setting ?? '').trim();
  if (configured !== '') {
    const p = expandHome(configured, e.home);
    if (p.includes('/') || p.includes('\\')) {
      if (e.isExecutable(p)) return { path: p, source: 'rlog.server.path' };
      return { tried: [`rlog.server.path (${p})`], badSetting: p };
    }
    for (const d of pathDirs) {
      const c = path.join(d, p);
      if (e.isExecutable(c)) return { path: c, source: 'rlog.server.path' };
    }
    return { tried: [`rlog.server.path (${p}, on PATH)`], badSetting: p };
  }
  tried.push('rlog.server.path (not set)');
  let bundledNotExecutable: string | undefined;
  if (bundledDir !== undefined) {
    const c = path.join(bundledDir, exe);
    if (e.isExecutable(c)) return { path: c, source: 'the extension' };
    if (e.exists(c)) {
      bundledNotExecutable = c;
      tried.push(`the extension (${c}, not executable)`);
    } else {
      tried.push('the extension (this package has no server)');
    }
  }
  for (const d of pathDirs) {
    const c = path.join(d, exe);
    if (e.isExecutable(c)) return { path: c, source: 'PATH' };
  }
  tried.push('PATH');
  const gopath = (e.env.GOPATH ?? '').split(sep).filter((d) => d !== '');
  const bins = e.env.GOBIN ? [e.env.GOBIN] : [];
  bins.push(...(gopath.length > 0 ? gopath : [path.join(e.home, 'go')]).map((d) => path.join(d, 'bin')));
  for (const d of bins) {
    const c = path.join(d, exe);
    if (e.isExecutable(c)) return { path: c, source: '$GOPATH/bin' };
  }
  tried.push(...bins);
  return bundledNotExecutable !== undefined ? { tried, bundledNotExecutable } : { tried };
}

/** notFoundMessage is what the user reads when there is no server. */
export function notFoundMessage(nf: NotFound): string {
  if (nf.badSetting !== undefined) {
    return `rlog: the language server set in rlog.server.path was not found or is not executable: ${nf.badSetting}. ` +
      `Fix the setting, or clear it to let the extension find its server. Syntax colouring works without the server.`;
  }
  if (nf.bundledNotExecutable !== undefined) {
    return `rlog: the language server inside the extension cannot be run: ${nf.bundledNotExecutable} is not executable ` +
      `(is the extensions folder on a file system mounted noexec?). Make it executable, or set rlog.server.path to a copy ` +
      `that is. Syntax colouring works without the server.`;
  }
  return `rlog: the rlog-ls language server was not found (looked in ${nf.tried.join(', ')}). ` +
    `This package of the extension has no server inside: install the package for your platform, or download rlog-ls ` +
    `from ${releasesUrl} and put it on PATH or set rlog.server.path to it (with Go 1.26, \`${goInstall}\` in a clone). ` +
    `Syntax colouring works without it; diagnostics, hover and the outline need it.`;
}

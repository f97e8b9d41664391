#!/usr/bin/env bash
# Installs code-server 4.100.3 (the last release for Node 20) and playwright-core
# for the end-to-end test, offline-safe and idempotent.
#
# code-server's postinstall runs `npm install` in its bundled VS Code, whose
# dependencies include native modules (built here with node-gyp against the
# Node headers in $npm_config_nodedir, e.g. Debian's /usr/include/node, which
# kerberos needs libkrb5-dev for) and @vscode/ripgrep, whose install script
# downloads rg from GitHub. So every install script is skipped, code-server's
# postinstall is run by hand, the native modules are rebuilt explicitly, and
# Debian's ripgrep (/usr/bin/rg, package ripgrep) is put where the download
# would have gone. This behaves the same under npm 10 (which runs install
# scripts) and npm 11 (which blocks them unless approved).
#
# Needs: node 20, npm, python3, make, g++, libkrb5-dev, ripgrep.
set -euo pipefail
cd "$(dirname "$0")"

stamp=node_modules/.rlog-e2e-installed
want="$(sha256sum package-lock.json | cut -d' ' -f1) node $(node -v)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "e2e: code-server and playwright-core already installed"
  exit 0
fi

node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" != 20 ]; then
  echo "e2e: code-server 4.100.3 needs Node.js 20, this is $(node -v)" >&2
  exit 1
fi
command -v rg >/dev/null || { echo "e2e: Debian's ripgrep is needed (apt-get install ripgrep)" >&2; exit 1; }
[ -f /usr/include/krb5.h ] || [ -f /usr/include/krb5/krb5.h ] || { echo "e2e: libkrb5-dev is needed (apt-get install libkrb5-dev)" >&2; exit 1; }

# unsafe-perm: code-server's postinstall refuses to run as root without it.
export npm_config_yes=true npm_config_unsafe_perm=true npm_config_fund=false npm_config_audit=false
# Node headers for node-gyp; without them it would try to download them.
if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node_version.h ]; then
  export npm_config_nodedir=/usr
fi

echo "e2e: npm ci (install scripts skipped)"
npm ci --ignore-scripts

cs=node_modules/code-server
vs=$cs/lib/vscode
echo "e2e: code-server's postinstall (VS Code's dependencies, install scripts skipped)"
(
  cd "$cs"
  export npm_config_ignore_scripts=true
  export npm_config_user_agent="npm/$(npm -v) node/$(node -v) linux x64"
  sh ./postinstall.sh
)

native=(@parcel/watcher @vscode/spdlog kerberos native-watchdog node-pty @vscode/deviceid)
echo "e2e: building native modules: argon2 ${native[*]}"
# npm 11 runs only approved install scripts: approve these (in .npmrc, as it
# asks for project installs); npm 10 runs them anyway.
echo "allow-scripts=$(IFS=,; echo "${native[*]}")" > "$vs/.npmrc"
npm rebuild --ignore-scripts=false argon2 # code-server's own; approved in package.json
(cd "$vs" && npm rebuild --ignore-scripts=false "${native[@]}")

echo "e2e: Debian's ripgrep for @vscode/ripgrep"
mkdir -p "$vs/node_modules/@vscode/ripgrep/bin"
ln -sf "$(command -v rg)" "$vs/node_modules/@vscode/ripgrep/bin/rg"

# Check that what VS Code's server loads is there.
for f in "$vs/node_modules/@vscode/spdlog/build/Release/spdlog.node" \
         "$vs/node_modules/node-pty/build/Release/pty.node" \
         "$vs/node_modules/kerberos/build/Release/kerberos.node" \
         "$vs/node_modules/native-watchdog/build/Release/watchdog.node"; do
  [ -f "$f" ] || { echo "e2e: $f was not built" >&2; exit 1; }
done
node -e 'require(process.argv[1])' "$(pwd)/node_modules/argon2" || { echo "e2e: argon2 does not load" >&2; exit 1; }
"$cs/out/node/entry.js" --version >/dev/null 2>&1 || node "$cs/out/node/entry.js" --version

echo "$want" > "$stamp"
echo "e2e: installed"

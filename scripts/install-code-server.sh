#!/usr/bin/env bash
# Installs the pinned code-server (VS Code's server with a real Node extension host) into its own
# folder, from the npm registry only. It is the editor the integration tests and `npm start` use.
# Needs Debian's libkrb5-dev (kerberos builds from source) and ripgrep (seeded below).
set -euo pipefail
VERSION=${CODE_SERVER_VERSION:-4.100.3}   # the last release that runs on Node 20 (VS Code 1.100.3)
DEST=${1:-"$(cd "$(dirname "$0")/.." && pwd)/.vscode-test/code-server"}
ENTRY="$DEST/node_modules/code-server/out/node/entry.js"
if [ -f "$ENTRY" ] && [ -f "$DEST/.installed-$VERSION" ]; then
  exit 0
fi
command -v rg >/dev/null || { echo "install-code-server: ripgrep is missing (apt-get install -y ripgrep)" >&2; exit 1; }
[ -f /usr/include/krb5.h ] || [ -f /usr/include/krb5/krb5.h ] || { echo "install-code-server: libkrb5-dev is missing (apt-get install -y libkrb5-dev)" >&2; exit 1; }
echo "Installing code-server $VERSION into $DEST (first run only, about 2 minutes)..."
mkdir -p "$DEST"
export TMPDIR=${TMPDIR:-/tmp}
# @vscode/ripgrep downloads rg in its postinstall; give it Debian's rg through its download cache.
RGCACHE="$TMPDIR/vscode-ripgrep-cache-1.15.11"
mkdir -p "$RGCACHE"
tar czf "$RGCACHE/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$(dirname "$(command -v rg)")" rg
cd "$DEST"
[ -f package.json ] || echo '{"name":"arbor-test-host","private":true}' > package.json
# unsafe_perm: code-server's postinstall refuses to run as root without it.
# yes: node-pty's postinstall runs `npx node-gyp`. nodedir: build against the local Node headers.
export npm_config_unsafe_perm=true npm_config_yes=true npm_config_audit=false npm_config_fund=false
[ -d /usr/include/node ] && export npm_config_nodedir=/usr
npm install --no-save --foreground-scripts --loglevel=error "code-server@$VERSION" > install.log 2>&1 || { tail -40 install.log >&2; exit 1; }
XDG_CONFIG_HOME="$TMPDIR/arbor-xdg" XDG_DATA_HOME="$TMPDIR/arbor-xdg" node "$ENTRY" --version
touch "$DEST/.installed-$VERSION"

#!/usr/bin/env bash
# Installs what the UI tests, `npm run lint` and `npm start` need on a fresh machine: Debian's
# Chromium, libkrb5-dev (code-server's native build), clang-format (the addon's C++ style), and a
# project-local code-server under .tools/.
set -euo pipefail
cd "$(dirname "$0")/../.."

CODE_SERVER_VERSION=4.100.3
need_apt=()
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
[ -e /usr/include/krb5.h ] || [ -e /usr/include/gssapi/gssapi.h ] || need_apt+=(libkrb5-dev)
[ -x /usr/bin/rg ] || need_apt+=(ripgrep)
[ -x /usr/bin/clang-format ] || need_apt+=(clang-format)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "ensure-tools: missing ${need_apt[*]}; install them with apt-get (needs root)" >&2
    exit 1
  fi
  echo "ensure-tools: installing ${need_apt[*]} from Debian"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

cs=.tools/code-server
if [ ! -x "$cs/node_modules/.bin/code-server" ] || ! "$cs/node_modules/.bin/code-server" --version 2>/dev/null | grep -q "^$CODE_SERVER_VERSION"; then
  echo "ensure-tools: installing code-server $CODE_SERVER_VERSION into $cs (about 3 minutes)"
  # code-server's bundled VS Code pins @vscode/ripgrep 1.15.11, whose postinstall downloads rg from
  # GitHub (unreachable here). It uses a cached archive when one exists: give it Debian's rg.
  rg_cache="${TMPDIR:-/tmp}/vscode-ripgrep-cache-1.15.11"
  mkdir -p "$rg_cache"
  tar -czf "$rg_cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C /usr/bin rg
  mkdir -p "$cs"
  printf '{"name":"code-server-host","private":true,"allowScripts":{"code-server":true}}\n' >"$cs/package.json"
  (cd "$cs" && npm_config_unsafe_perm=true npm_config_yes=true npm install --no-save --loglevel=error "code-server@$CODE_SERVER_VERSION")
fi

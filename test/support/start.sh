#!/usr/bin/env bash
# `npm start`: build and package the extension, install it into the project-local code-server,
# and serve VS Code on the examples/ workspace. No GPU needed.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash test/support/ensure-tools.sh
npm run package
exec node --import tsx test/support/start.ts

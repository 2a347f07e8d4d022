// The version this build is, from package.json: said by `cuda-kernel-dev --version`, the language
// server's serverInfo and SARIF's tool driver. (esbuild inlines the one field the bundles read.)
import { version } from "../package.json";

export const VERSION: string = version;

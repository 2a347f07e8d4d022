// Serves VS Code (code-server) with the freshly packaged extension on examples/ until interrupted.
import { join } from "node:path";
import { installExtension, repoRoot, startCodeServer } from "./codeServer";

async function main(): Promise<void> {
  const extensionsDir = join(repoRoot, ".tools/extensions");
  installExtension(extensionsDir);
  const port = Number(process.env.PORT ?? 8080);
  const server = await startCodeServer({
    workspace: join(repoRoot, "examples"),
    port,
    extensionsDir,
    settings: { "security.workspace.trust.enabled": false },
    inheritOutput: false,
  });
  process.stdout.write(
    `\nCUDA Kernel Dev is served at ${server.url}/?folder=${encodeURIComponent(server.workspace)}\n`,
  );
  process.stdout.write("Open it in a browser; press Ctrl+C to stop.\n");
  const stop = (): void => {
    void server.stop().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`npm start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

// A CMake file's commands as blocks: if/elseif/else chains, loops and function bodies, so that a reader
// can tell exclusive branches apart and run a loop's body per item. Syntax only: nothing is evaluated here.
import { cmakeCommands, type CMakeArg, type CMakeCommand } from "./buildSyntax";

export type CMakeBlock =
  | { kind: "command"; cmd: CMakeCommand }
  /** One chain; `cond` undefined for else(). */
  | { kind: "if"; branches: { cond?: CMakeArg[]; body: CMakeBlock[] }[] }
  | { kind: "foreach" | "while"; cmd: CMakeCommand; body: CMakeBlock[] }
  /** function() or macro(): run only where called, with arguments we do not know. */
  | { kind: "definition"; name: string; body: CMakeBlock[] };

const ENDS: Record<string, string> = {
  foreach: "endforeach",
  while: "endwhile",
  function: "endfunction",
  macro: "endmacro",
};

/** Blocks from `cmds[at]` until a command named in `stop` (left unconsumed) or the end. */
function blocksFrom(
  cmds: readonly CMakeCommand[],
  at: number,
  stop: ReadonlySet<string>,
): [CMakeBlock[], number] {
  const out: CMakeBlock[] = [];
  let i = at;
  while (i < cmds.length && !stop.has(cmds[i]!.name)) {
    const cmd = cmds[i]!;
    if (cmd.name === "if") {
      const branches: { cond?: CMakeArg[]; body: CMakeBlock[] }[] = [];
      let cond: CMakeArg[] | undefined = cmd.args;
      i++;
      for (;;) {
        const [body, next] = blocksFrom(cmds, i, new Set(["elseif", "else", "endif"]));
        branches.push({ ...(cond ? { cond } : {}), body });
        const end = cmds[next];
        i = next + 1;
        if (!end || end.name === "endif") break;
        cond = end.name === "elseif" ? end.args : undefined;
      }
      out.push({ kind: "if", branches });
    } else if (ENDS[cmd.name]) {
      const [body, next] = blocksFrom(cmds, i + 1, new Set([ENDS[cmd.name]!]));
      i = next + 1;
      if (cmd.name === "foreach" || cmd.name === "while") out.push({ kind: cmd.name, cmd, body });
      else out.push({ kind: "definition", name: (cmd.args[0]?.text ?? "").toLowerCase(), body });
    } else {
      out.push({ kind: "command", cmd });
      i++;
    }
  }
  return [out, i];
}

/** The file's commands as blocks; an unclosed block ends at the end of the file. */
export function cmakeBlocks(text: string): CMakeBlock[] {
  return blocksFrom(cmakeCommands(text), 0, new Set())[0];
}

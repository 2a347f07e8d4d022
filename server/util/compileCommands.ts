// compile_commands.json, one entry at a time. The file is read in 1 MiB chunks through a streaming JSON
// parser (@streamparser/json) that hands over each array element and keeps nothing behind it, so the
// memory a read takes follows the largest entry, not the file: CMake and Bear write files of 100 MB and
// more for large projects, and JSON.parse of one takes 1.5 GB. The lint's build reader and the compiler's
// flag lookup both read through here.
import { closeSync, openSync, readSync } from "node:fs";
import { JSONParser } from "@streamparser/json";

/** One entry as the JSON Compilation Database specification lists its fields (any may be missing). */
export interface CompileCommand {
  directory?: unknown;
  file?: unknown;
  command?: unknown;
  arguments?: unknown;
}

const CHUNK = 1 << 20;

/**
 * Calls `visit` with each object of the file's top-level array, in order, until it returns true. Throws
 * when the file cannot be read, is not valid JSON, or its top level is not an array.
 */
export function forEachCompileCommand(path: string, visit: (entry: CompileCommand) => boolean | void): void {
  let started = false;
  let stop = false;
  const parser = new JSONParser({ paths: ["$.*"], keepStack: false });
  parser.onValue = ({ value }) => {
    if (stop) return;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) stop = visit(value) === true;
  };
  const fd = openSync(path, "r");
  try {
    while (!stop) {
      // A fresh buffer each time: the parser may hold on to part of the last one.
      const buf = Buffer.allocUnsafe(CHUNK);
      const n = readSync(fd, buf);
      if (n === 0) break;
      const chunk = buf.subarray(0, n);
      if (!started) {
        const text = chunk.toString("latin1").trimStart();
        if (text === "") continue;
        if (!text.startsWith("[")) throw new Error("not a JSON array of compile commands");
        started = true;
      }
      parser.write(chunk);
    }
  } finally {
    closeSync(fd);
  }
  if (!started) throw new Error("not a JSON array of compile commands");
  // The parser ends by itself when the array closes; at the file's end it must have.
  if (!stop && !parser.isEnded) parser.end();
}

/** The entry's argument vector: `arguments` as given, else `command` split as a shell would. */
export function commandArgs(e: CompileCommand): string[] {
  if (Array.isArray(e.arguments)) return e.arguments.filter((a): a is string => typeof a === "string");
  return typeof e.command === "string" ? splitCommand(e.command) : [];
}

/** Splits a compile command the way a POSIX shell would for the simple quoting CMake writes. */
export function splitCommand(command: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quote: string | undefined;
  let any = false;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < command.length) cur += command[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      any = true;
    } else if (c === "\\" && i + 1 < command.length) {
      cur += command[++i];
      any = true;
    } else if (/\s/.test(c)) {
      if (cur || any) out.push(cur);
      cur = "";
      any = false;
    } else {
      cur += c;
    }
  }
  if (cur || any) out.push(cur);
  return out;
}

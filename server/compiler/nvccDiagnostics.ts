// nvcc's output (cudafe++ front end, the host preprocessor, ptxas, nvlink, the driver itself) as
// diagnostics on files and lines. The shapes handled, all seen from nvcc 13.0:
//   file.cu(9): error: identifier "dd" is undefined            (cudafe++; then snippet + caret)
//   file.cu(3): warning #177-D: variable "unused" was declared but never referenced
//             detected during instantiation of "..." at line 6 of other.cu
//   In file included from x.cu:2:  /  inc/h.cuh:3:10: fatal error: y.cuh: No such file or directory
//   ptxas error   : Entry function '_Z5stagePfPKf' uses too much shared data (0x10000 bytes, 0xc000 max)
//   ptxas warning : Registers are spilled to local memory in function '_Z5noisyPfPKfi', ...
//   nvcc fatal   : Unsupported gpu architecture 'sm_99'
// Lines are 1-based here, as the compiler prints them; columns are 0-based and optional.
import { kernelDisplayName } from "./demangle";

export type NvccSeverity = "error" | "warning" | "remark" | "note";

export interface RelatedLocation {
  file: string;
  line: number;
  message: string;
}

export interface NvccDiagnostic {
  /** As printed (relative to nvcc's working directory); undefined for tool messages with no location. */
  file?: string;
  line?: number;
  column?: number;
  severity: NvccSeverity;
  message: string;
  /** e.g. "177-D" for cudafe++ warnings. */
  code?: string;
  /** The tool that complained: "nvcc" (cudafe++), "host" (preprocessor/host compiler), "ptxas", "nvlink", "driver". */
  source: "nvcc" | "host" | "ptxas" | "nvlink" | "driver";
  /** The kernel a ptxas message is about (mangled), to place it on the kernel's definition. */
  symbol?: string;
  /** The source line as the compiler printed it (maybe after macro expansion) and the caret's index in it. */
  snippet?: { text: string; caret: number };
  /** Instantiation chain ("detected during ...") and include chain ("In file included from"). */
  related: RelatedLocation[];
}

const CUDAFE =
  /^(.+?)\((\d+)\): (error|warning|remark|note|catastrophic error|internal error)(?: #([\w-]+))?: (.*)$/;
const HOST = /^(.+?):(\d+):(?:(\d+):)? (fatal error|error|warning|note): (.*)$/;
const INCLUDED_FROM = /^(?:In file included from|\s+from) (.+?):(\d+)[:,]?$/;
const TOOL = /^(ptxas|nvlink|nvcc|fatbinary|cicc|cudafe\+\+)\s*(error|warning|fatal|info)\s*: (.*)$/;
const AT_LINE = /at line (\d+)(?: of (.+?))?$/;
const QUOTED_SYMBOL = /(?:function|Entry function|for) '([^']+)'/;

function severityOf(word: string): NvccSeverity {
  if (word.includes("error") || word === "fatal") return "error";
  if (word === "warning") return "warning";
  if (word === "note") return "note";
  return "remark";
}

/** Parses everything nvcc printed (stdout and stderr together) into diagnostics, in order. */
export function parseNvccOutput(output: string): NvccDiagnostic[] {
  const lines = output.split(/\r?\n/);
  const diagnostics: NvccDiagnostic[] = [];
  let includeChain: RelatedLocation[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const inc = INCLUDED_FROM.exec(line);
    if (inc) {
      includeChain.push({ file: inc[1]!, line: Number(inc[2]), message: "included from here" });
      continue;
    }
    const fe = CUDAFE.exec(line);
    if (fe) {
      const d: NvccDiagnostic = {
        file: fe[1]!,
        line: Number(fe[2]),
        severity: severityOf(fe[3]!),
        message: fe[5]!,
        source: "nvcc",
        related: [],
      };
      if (fe[4]) d.code = fe[4];
      // Continuation lines until a blank line: more message, the snippet and caret, instantiation notes.
      const extra: string[] = [];
      let j = i + 1;
      for (; j < lines.length && lines[j]!.trim() !== ""; j++) {
        const next = lines[j]!;
        if (CUDAFE.exec(next) || TOOL.exec(next)) break;
        const caret = /^(\s*)\^\s*$/.exec(next);
        if (caret) {
          const snippet = extra.pop();
          // nvcc indents the snippet by two spaces.
          if (snippet !== undefined) {
            d.snippet = { text: snippet, caret: caret[1]!.length };
            d.column = Math.max(0, caret[1]!.length - 2);
          }
          continue;
        }
        const at = AT_LINE.exec(next.trim());
        if (at && /detected during|instantiation of|required from/.test(next)) {
          d.related.push({
            file: at[2] ?? d.file!,
            line: Number(at[1]),
            message: next.trim().replace(/^detected during:?\s*/, ""),
          });
          continue;
        }
        if (/^\s*detected during:\s*$/.test(next)) continue;
        extra.push(next);
      }
      // What precedes the snippet is message text (e.g. "argument types are: (int)"), indented deeper.
      const more = extra.filter((x) => /^\s{6,}\S/.test(x)).map((x) => x.trim());
      if (more.length) d.message = `${d.message}\n${more.join("\n")}`;
      d.related.push(...includeChain);
      includeChain = [];
      diagnostics.push(d);
      i = j - 1;
      continue;
    }
    const host = HOST.exec(line);
    if (host) {
      const d: NvccDiagnostic = {
        file: host[1]!,
        line: Number(host[2]),
        severity: severityOf(host[4]!),
        message: host[5]!,
        source: "host",
        related: includeChain,
      };
      if (host[3]) d.column = Number(host[3]) - 1;
      includeChain = [];
      diagnostics.push(d);
      continue;
    }
    const tool = TOOL.exec(line);
    if (tool && tool[2] !== "info") {
      const name = tool[1]!;
      const d: NvccDiagnostic = {
        severity: severityOf(tool[2]!),
        message: tool[3]!.trim(),
        source: name === "ptxas" ? "ptxas" : name === "nvlink" ? "nvlink" : "driver",
        related: [],
      };
      const sym = QUOTED_SYMBOL.exec(d.message);
      if (sym) {
        d.symbol = sym[1]!;
        // Show the kernel's C++ name in the message; the symbol stays available for placement.
        d.message = d.message.replace(`'${sym[1]!}'`, `'${kernelDisplayName(sym[1]!)}'`);
      }
      const hex = /uses too much shared data \((0x[0-9a-f]+) bytes, (0x[0-9a-f]+) max\)/.exec(d.message);
      if (hex) d.message += ` (${Number(hex[1])} B, at most ${Number(hex[2])} B of static shared memory)`;
      diagnostics.push(d);
    }
  }
  return diagnostics;
}

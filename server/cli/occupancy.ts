// `cuda-kernel-dev occupancy --arch sm_90 --regs 64 --block 256 [--static-smem B] [--dynamic-smem B] [--json]`
// and `--batch FILE.csv` (columns arch,regs,staticSmem,block,dynamicSmem[,barriers][,maxDynamicSmem]): one JSON object
// per row, in order. A bad row prints {"row": N, "error": "..."} in its place and the exit status is 1.
import { Command } from "commander";
import { parse } from "csv-parse/sync";
import { readFileSync } from "node:fs";
import {
  occupancy,
  OccupancyInputError,
  type KernelUsage,
  type OccupancyResult,
} from "../occupancy/occupancy";
import { errorMessage } from "../util/errorMessage";
import { CliError } from "./cliError";
import { EXIT } from "./exitCodes";

interface OccupancyCliOptions {
  arch?: string;
  regs?: string;
  block?: string;
  staticSmem: string;
  dynamicSmem: string;
  barriers?: string;
  maxDynamicSmem?: string;
  json?: boolean;
  batch?: string;
}

function int(name: string, raw: string | undefined): number {
  if (raw === undefined || raw.trim() === "") throw new OccupancyInputError(`${name} is missing`);
  const v = Number(raw.trim());
  if (!Number.isInteger(v)) throw new OccupancyInputError(`${name} must be an integer, got "${raw}"`);
  return v;
}

interface Inputs {
  arch: string;
  regs?: string;
  block?: string;
  staticSmem?: string;
  dynamicSmem?: string;
  barriers?: string;
  maxDynamicSmem?: string;
}

const given = (v: string | undefined): v is string => v !== undefined && v.trim() !== "";

function compute(i: Inputs): OccupancyResult {
  const kernel: KernelUsage = {
    regsPerThread: int("regs", i.regs),
    staticSmemBytes: int("staticSmem", i.staticSmem ?? "0"),
  };
  if (given(i.barriers)) kernel.barriers = int("barriers", i.barriers);
  if (given(i.maxDynamicSmem)) kernel.maxDynamicSmemBytes = int("maxDynamicSmem", i.maxDynamicSmem);
  return occupancy(i.arch, kernel, {
    blockSize: int("block", i.block),
    dynamicSmemBytes: int("dynamicSmem", i.dynamicSmem ?? "0"),
  });
}

function human(r: OccupancyResult): string {
  const lim = r.blockLimits;
  const show = (n: number | null): string => (n === null ? "-" : String(n));
  const lines = [
    `${r.arch}: ${r.activeBlocksPerSM} blocks/SM, ${r.activeWarpsPerSM}/${r.maxWarpsPerSM} warps, occupancy ${r.occupancyPct}%`,
    `limited by: ${r.limiters.join(", ")}`,
    `blocks/SM allowed by warps ${show(lim.warps)}, registers ${show(lim.registers)}, shared memory ${show(lim.sharedMemory)}, blocks ${show(lim.blocks)}, barriers ${show(lim.barriers)}`,
    `allocated per block: ${r.allocatedRegistersPerBlock} registers, ${r.allocatedSmemPerBlock} B shared memory`,
  ];
  if (r.reason) lines.push(`cannot launch: ${r.reason}`);
  return lines.join("\n") + "\n";
}

function runBatch(file: string): void {
  let rows: Record<string, string>[];
  try {
    rows = parse<Record<string, string>>(readFileSync(file, "utf8"), {
      columns: true,
      skip_empty_lines: true,
      trim: true,
    });
  } catch (err) {
    throw new CliError(`--batch ${file}: ${errorMessage(err)}`, EXIT.usage);
  }
  const missing = ["arch", "regs", "staticSmem", "block", "dynamicSmem"].filter(
    (c) => rows.length > 0 && !(c in rows[0]!),
  );
  if (missing.length)
    throw new CliError(`--batch ${file}: missing column(s) ${missing.join(", ")}`, EXIT.usage);
  let failed = false;
  rows.forEach((row, i) => {
    let line: string;
    try {
      const r = compute({ ...row, arch: row.arch ?? "" });
      line = JSON.stringify({ row: i + 1, ...r });
    } catch (err) {
      if (!(err instanceof OccupancyInputError)) throw err;
      failed = true;
      line = JSON.stringify({ row: i + 1, error: err.message });
    }
    process.stdout.write(`${line}\n`);
  });
  if (failed) process.exitCode = EXIT.found;
}

export function occupancyCommand(): Command {
  return new Command("occupancy")
    .description(
      "Active blocks and warps per SM for a kernel's registers, shared memory and block size (the driver's rules).",
    )
    .option("--arch <sm>", "architecture, e.g. sm_90")
    .option("--regs <n>", "registers per thread")
    .option("--block <n>", "threads per block")
    .option("--static-smem <bytes>", "static __shared__ bytes", "0")
    .option("--dynamic-smem <bytes>", "dynamic shared memory bytes at launch", "0")
    .option("--barriers <n>", "named barriers the kernel uses (ptxas: used N barriers); default 1")
    .option(
      "--max-dynamic-smem <bytes>",
      "the kernel's cudaFuncAttributeMaxDynamicSharedMemorySize (default: the opt-in maximum)",
    )
    .option("--json", "print JSON")
    .option(
      "--batch <file.csv>",
      "one JSON line per CSV row (arch,regs,staticSmem,block,dynamicSmem; optional barriers, maxDynamicSmem)",
    )
    .action((opts: OccupancyCliOptions) => {
      if (opts.batch !== undefined) {
        runBatch(opts.batch);
        return;
      }
      if (opts.arch === undefined) throw new CliError("--arch is required (e.g. --arch sm_90)", EXIT.usage);
      let r: OccupancyResult;
      try {
        r = compute({ ...opts, arch: opts.arch });
      } catch (err) {
        if (err instanceof OccupancyInputError)
          throw new CliError(err.message.replace(/^(regs|block)\b/, "--$1"), EXIT.usage);
        throw err;
      }
      process.stdout.write(opts.json ? `${JSON.stringify(r, null, 2)}\n` : human(r));
    });
}

// Reads `ncu --print-summary per-kernel` text, the reference the CSV parser is checked against.
// Columns are cut where ncu's dashed rule line puts them, since names and units contain spaces.
import { readFileSync } from "node:fs";

export interface SummaryRow {
  unit: string;
  min: number;
  max: number;
  avg: number;
}

export interface SummaryKernel {
  kernel: string;
  invocations: number;
  /** section -> metric name -> row */
  sections: Map<string, Map<string, SummaryRow>>;
}

const num = (t: string): number => Number(t.trim().replace(/,/g, ""));

export function readPrintSummary(path: string): SummaryKernel[] {
  const kernels: SummaryKernel[] = [];
  let kernel: SummaryKernel | undefined;
  let section: Map<string, SummaryRow> | undefined;
  let cuts: [number, number][] | undefined;
  let ruleLines = 0;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const k =
      /^ {2}(\S.*) \(\d+, \d+, \d+\)x\(\d+, \d+, \d+\), Device \d+, CC [\d.]+, Invocations (\d+)$/.exec(line);
    if (k) {
      kernel = { kernel: k[1]!, invocations: Number(k[2]), sections: new Map() };
      kernels.push(kernel);
      continue;
    }
    const s = /^ {4}Section: (.+)$/.exec(line);
    if (s && kernel) {
      section = new Map();
      kernel.sections.set(s[1]!, section);
      cuts = undefined;
      ruleLines = 0;
      continue;
    }
    if (/^ {4}-+( -+)+\s*$/.test(line)) {
      ruleLines++;
      cuts = [];
      for (const m of line.matchAll(/-+/g)) cuts.push([m.index, m.index + m[0].length]);
      continue;
    }
    // Rows sit between the second and third rule lines of a section table.
    if (section && cuts && ruleLines === 2 && line.trim() !== "") {
      const cell = (i: number): string =>
        line.slice(cuts![i]![0], cuts![i]![1] + (i === cuts!.length - 1 ? 100 : 0)).trim();
      section.set(cell(0), { unit: cell(1), min: num(cell(2)), max: num(cell(3)), avg: num(cell(4)) });
    }
  }
  return kernels;
}

/**
 * Compares parsed launches with a --print-summary reference: for every numeric metric the summary
 * lists, the min, max and average over each kernel's launches. Both sides print two decimals of
 * their own unit; allow that rounding, and 0.5% where a launch printed a value in a smaller unit.
 */
export function compareWithPrintSummary(
  launches: { kernel: string; metrics: Map<string, { unit: string; value: number | string | null }> }[],
  ref: SummaryKernel[],
  key: (section: string, name: string) => string,
  unitFactor: (unit: string) => { factor: number; base: string } | undefined,
): { compared: number; mismatches: string[] } {
  let compared = 0;
  const mismatches: string[] = [];
  for (const k of ref) {
    const mine = launches.filter((l) => l.kernel === k.kernel);
    if (mine.length !== k.invocations)
      mismatches.push(`${k.kernel}: ${mine.length} launches, summary says ${k.invocations}`);
    if (mine.length === 0) continue;
    for (const [section, rows] of k.sections) {
      for (const [name, row] of rows) {
        const ms = mine.map((l) => l.metrics.get(key(section, name)));
        if (ms.some((m) => typeof m?.value !== "number")) continue; // text metrics are not in the summary
        const f = unitFactor(row.unit);
        if (!f) {
          mismatches.push(`${section} / ${name}: unit "${row.unit}" unknown`);
          continue;
        }
        if (ms[0]!.unit !== f.base)
          mismatches.push(`${section} / ${name}: unit ${ms[0]!.unit}, summary ${f.base}`);
        const nums = ms.map((m) => m!.value as number);
        const check = (a: number, b: number, what: string): void => {
          const tol = Math.max(0.0101 * f.factor, Math.abs(b) * 0.005);
          if (Math.abs(a - b) > tol)
            mismatches.push(`${k.kernel.slice(0, 20)} ${section} / ${name} ${what}: ${a} vs ${b}`);
        };
        check(Math.min(...nums), row.min * f.factor, "min");
        check(Math.max(...nums), row.max * f.factor, "max");
        check(nums.reduce((s, v) => s + v, 0) / nums.length, row.avg * f.factor, "avg");
        compared++;
      }
    }
  }
  return { compared, mismatches };
}

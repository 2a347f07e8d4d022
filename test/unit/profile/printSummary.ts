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

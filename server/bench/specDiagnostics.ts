// Spec problems as lint findings, for the language server: parse errors with their exact place,
// mismatches with the kernel's signature, and values that cannot launch (checked for every size).
import type { Finding } from "../rules/rule";
import { parseSpec } from "./benchSpec";
import { allSpecLines, scanKernels, type ReadZone } from "./kernelScan";
import { planPoints } from "./plan";
import { checkSignature } from "./signature";
import { SpecError } from "./specLexer";

export const SPEC_RULE_ID = "bench-spec";

function finding(e: SpecError): Finding {
  return { rule: SPEC_RULE_ID, severity: e.severity, message: e.message, span: e.span, fixes: [] };
}

export function benchSpecFindings(text: string): Finding[] {
  return specScan(text).findings;
}

/** The findings and what the kernel scan read to make them. */
export function specScan(text: string): { findings: Finding[]; zones: ReadZone[] } {
  if (!text.includes("@bench")) return { findings: [], zones: [] };
  const zones: ReadZone[] = [];
  const kernels = scanKernels(text, zones);
  const attached = new Set(kernels.flatMap((k) => k.specLines.map((l) => l.line)));
  const out: Finding[] = [];
  for (const line of allSpecLines(text))
    if (!attached.has(line.line))
      out.push(
        finding(
          new SpecError(
            "this @bench line is not in the comment block directly above a __global__ kernel",
            line.markerSpan,
            "warning",
          ),
        ),
      );
  for (const kernel of kernels) {
    const parsed = parseSpec(kernel);
    if (!parsed) continue;
    if (parsed.errors.length > 0) {
      out.push(...parsed.errors.map(finding));
      continue;
    }
    const issues = checkSignature(parsed.spec, kernel, kernels);
    out.push(...issues.map(finding));
    if (issues.some((i) => i.severity === "error")) continue;
    try {
      planPoints(parsed.spec, kernel);
    } catch (e) {
      if (!(e instanceof SpecError)) throw e;
      out.push(finding(e));
    }
  }
  return { findings: out, zones };
}

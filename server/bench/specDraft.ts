// A first spec from a kernel's signature, for the "Write a benchmark spec" code action: integer
// parameters become sweep variables, pointers become buffers of their product (outputs where not
// const), floats get a plain value. The result always parses and checks; the user then edits sizes.
import type { DType } from "../../native/runner/protocol";
import type { KernelInfo } from "./kernelScan";
import { DTYPE_BYTES } from "./plan";
import { dtypeOfCType } from "./signature";
import type { TemplateArgSpec } from "./specTypes";

const INT_TYPES =
  /^(?:(?:unsigned|signed)\s+)?(?:int|long|long long|short|size_t|int32_t|int64_t|uint32_t|uint64_t|unsigned|ptrdiff_t)$/;
const SIZES = [1024, 4096];

function templateDraft(k: KernelInfo): TemplateArgSpec[] {
  const span = k.nameSpan;
  return (k.template ?? []).map((p) => ({
    name: p.name,
    value:
      p.defaultValue ??
      (p.kind === "type"
        ? "float"
        : /bool/.test(p.valueType)
          ? "true"
          : /block|thread/i.test(p.name)
            ? "256"
            : "4"),
    span,
  }));
}

/** The spec lines (without indentation) for `k`. */
export function draftSpec(k: KernelInfo): string[] {
  const template = templateDraft(k);
  const dtype = (t: string): DType => dtypeOfCType(t, template) ?? "f32";
  const ints = k.params.filter((p) => !p.pointer && INT_TYPES.test(p.baseType) && p.name);
  const sweep = ints.length > 0 ? ints.map((p) => p.name) : ["n"];
  const count = sweep.join("*");
  const lines: string[] = [];
  lines.push(sweep.map((v, i) => `${v}=[${i === 0 ? SIZES.join(", ") : SIZES[SIZES.length - 1]}]`).join(" "));
  // One thread per element is the common shape; the user adjusts grid and block to the kernel's.
  lines.push(`grid=(cdiv(${count}, 256)) block=(256)`);
  const bytes: string[] = [];
  k.params.forEach((p, i) => {
    const name = p.name || `#${i + 1}`;
    if (p.pointer) {
      const d = dtype(p.baseType);
      lines.push(`arg ${name}: ${d}[${count}] ${p.isConst ? "randn" : "zeros output"}`);
      bytes.push(`${DTYPE_BYTES[d]}*${count}`);
    } else if (ints.includes(p)) {
      lines.push(
        `arg ${name}: ${dtype(p.baseType) === "i64" || dtype(p.baseType) === "u64" ? dtype(p.baseType) : "i32"} = ${name}`,
      );
    } else {
      const d = dtype(p.baseType);
      const value = /eps/i.test(name) ? "1e-6" : /^[iu]/.test(d) ? "1" : "1.0";
      lines.push(`arg ${name}: ${d} = ${value}`);
    }
  });
  if (template.length > 0) lines.push(`template ${template.map((t) => `${t.name}=${t.value}`).join(" ")}`);
  if (bytes.length > 0) lines.push(`bytes = ${bytes.join(" + ")}`);
  return lines.map((l) => `// @bench ${l}`);
}

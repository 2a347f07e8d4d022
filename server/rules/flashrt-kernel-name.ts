// FlashRT's kernel names (opt-in: `[conventions] flashrt = true`): each suffix says what the kernel takes
// and writes — _fp16 fp16 data, _fp8 fp8 input, _bf16out / _f32out the output's dtype, _noweight no weight
// vector, _inplace one buffer read and written — so a reader (and the Python binding's author) can trust a
// name without reading the source. A name that says one thing while the parameters say another is a bug
// in one of them. The suffix table is configuration: server/rules/data/flashrt-suffixes.json, extended or
// overridden by `[conventions.flashrt-suffixes]` in .cuda-kernel-dev.toml.
import type { Rule } from "./rule";
import type { SuffixClaim } from "./conventions";
import { FileIndex } from "../analysis/source/fileIndex";
import { kernels, typeAliases, type KernelSignature, type Param } from "../analysis/launches/kernelSignature";

const glob = (pattern: string): RegExp =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`, "i");

/** The first few types of a list, for a message of readable length. */
const list = (types: readonly string[]): string => {
  const shown = types.slice(0, 4).map((t) => `\`${t}\``);
  return types.length > 4 ? `${shown.join(", ")} or ${types.length - 4} more` : shown.join(", ");
};

/** A pointer whose pointee is a template parameter or void: its dtype is decided elsewhere. */
const untyped = (sig: KernelSignature): boolean =>
  sig.params.some((p) => p.pointer && (sig.templateTypes.has(p.type) || p.type === "void"));

/** Why the parameters contradict the suffix, or undefined when they agree (or cannot be told). */
function contradiction(sig: KernelSignature, claim: SuffixClaim): string | undefined {
  const pointers = sig.params.filter((p) => p.pointer);
  if (claim.types && !untyped(sig) && !pointers.some((p) => claim.types!.includes(p.type)))
    return `none of its pointer parameters is ${list(claim.types)}`;
  if (
    claim.outputTypes &&
    !untyped(sig) &&
    !pointers.some((p) => !p.constPointee && claim.outputTypes!.includes(p.type))
  )
    return `no output (non-const pointer) parameter is ${list(claim.outputTypes)}`;
  const banned = claim.absentParams?.map(glob);
  const present = banned && sig.params.find((p) => banned.some((re) => re.test(p.name)));
  if (present) return `it takes \`${present.name}\``;
  if (claim.oneBuffer) {
    const named = (patterns: readonly string[]): Param | undefined =>
      pointers.find((p) => patterns.some((g) => glob(g).test(p.name)));
    const input = named(claim.oneBuffer.inputs);
    const output = named(claim.oneBuffer.outputs);
    if (input && output && input.name !== output.name)
      return `it reads \`${input.name}\` and writes \`${output.name}\`, two buffers`;
  }
  return undefined;
}

export const flashrtKernelName: Rule = {
  id: "flashrt-kernel-name",
  defaultSeverity: "warning",
  basis: "heuristic",
  convention: "flashrt",
  summary:
    "A kernel name's FlashRT suffix (_fp16, _fp8, _bf16out, _f32out, _inplace, _noweight, …) must match its parameters.",
  check(ctx) {
    const table = ctx.options.conventions?.flashrt;
    if (!table) return;
    const idx = FileIndex.of(ctx);
    // A typedef anywhere in the file can name a parameter's type.
    idx.readsWholeFile();
    const aliases = idx.shared("typeAliases", () => typeAliases(ctx.text));
    for (const sig of kernels(idx, aliases))
      for (const suffix of new Set(sig.name.toLowerCase().split("_"))) {
        const claim = Object.hasOwn(table, suffix) ? table[suffix] : undefined;
        const why = claim && contradiction(sig, claim);
        if (why)
          ctx.report({
            node: sig.nameNode,
            message: `\`${sig.name}\` says _${suffix} (${claim.meaning}), but ${why}: rename the kernel or fix its parameters.`,
          });
      }
  },
};

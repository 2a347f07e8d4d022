// Code-generation templates under a .cu/.cuh name, read as the CUDA source they generate. Projects that
// generate kernels per type or per backend keep the template itself under a CUDA name (FBGEMM's
// embedding kernels, PyTorch's and TVM's codegen): Jinja tags (`{% if is_rocm %}`, `{%- for t in types %}`,
// `{{ name }}`, `{# note #}`) decide which lines the generated source gets. Read as C++ with the tags in
// place, every arm is compiled at once, the ROCm one as CUDA (HIP's `__shfl_xor` as a deprecated CUDA
// shuffle). So the lint reads a template as its CUDA rendering:
// - tags are blanked; a `{{ … }}` substitution becomes an identifier of its length (`{{ t }}` is a type,
//   a name or a number in the output: an identifier parses as each);
// - an arm whose condition is a ROCm/HIP switch (`is_rocm`, `use_hip`, `rocm and x`) is blanked, and so is
//   the `else` of `not is_rocm`; every other arm is kept (like an `#if` on an unknown macro).
// Lengths and line ends are kept, so positions in the rendering are the template's.
// A line that starts with a `{%` tag is never C++ (`{` then `%` is no token sequence a statement holds;
// the digraph for `{` is `<%`): one such line makes the file a template.
// Cannot see: loops (`{% for %}` bodies are read once), macros and includes of Jinja, other template
// languages (Mako `%if`, m4, CMake's `@VAR@`), a Jinja template without a block tag on its own line.
const JINJA_LINE =
  /^[ \t]*\{%[-+]?[ \t]*(?:if|elif|else|endif|for|endfor|set|macro|endmacro|call|endcall|include|import|from|extends|block|endblock|filter|raw|with)\b/m;
const TAG = /\{%[-+]?\s*(\w+)\s*([\s\S]*?)\s*[-+]?%\}|\{\{[\s\S]*?\}\}|\{#[\s\S]*?#\}/g;
const HIP_SWITCH = /^(?:is_|use_|with_|enable_)?(?:rocm|hip|amd)$/i;

type Arm = "dead" | "live" | "kept";

/** What a condition is in a CUDA rendering: false ("dead"), true ("live"), or not known ("kept"). */
function inCuda(cond: string): Arm {
  const c = cond.replace(/^\((.*)\)$/s, "$1").trim();
  if (/\bor\b/.test(c)) return "kept";
  const negated = /^not\s+(\w+)$/.exec(c);
  if (negated && HIP_SWITCH.test(negated[1]!)) return "live";
  return c.split(/\s+and\s+/).some((part) => HIP_SWITCH.test(part.trim())) ? "dead" : "kept";
}

/** Spaces for `s`, its line ends kept. */
const blank = (s: string): string => s.replace(/[^\n]/g, " ");

/** One `{% if %}` being read: whether the current arm is dropped, and whether an earlier arm was true. */
interface Open {
  dropping: boolean;
  taken: boolean;
}

/**
 * The CUDA rendering of `text` when it is a Jinja template (see the top), else undefined. Same length,
 * same line ends.
 */
export function renderJinjaForCuda(text: string): string | undefined {
  // includes first: most files have no `{%`, and it is cheaper than the regex on every keystroke
  if (!text.includes("{%") || !JINJA_LINE.test(text)) return undefined;
  const out: string[] = [];
  const stack: Open[] = [];
  const dropping = (): boolean => stack.some((o) => o.dropping);
  let at = 0;
  for (const m of text.matchAll(TAG)) {
    const piece = text.slice(at, m.index);
    out.push(dropping() ? blank(piece) : piece);
    at = m.index + m[0].length;
    const [tag, word, cond = ""] = m;
    if (tag.startsWith("{{")) {
      out.push(dropping() ? blank(tag) : tag.replace(/[^\n]/g, "_"));
      continue;
    }
    out.push(blank(tag));
    if (word === "if") {
      const arm = inCuda(cond);
      stack.push({ dropping: arm === "dead", taken: arm === "live" });
    } else if ((word === "elif" || word === "else") && stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const arm = word === "else" ? "kept" : inCuda(cond);
      top.dropping = top.taken || arm === "dead";
      top.taken ||= arm === "live";
    } else if (word === "endif") stack.pop();
  }
  const rest = text.slice(at);
  out.push(dropping() ? blank(rest) : rest);
  return out.join("");
}

// CMake variables as far as a build file says them: ${VAR} expansion, and the if() conditions a CUDA
// build decides (a backend switch: BUILD_CUDA taken, USE_ROCM not). A variable set on the command line or
// in the cache is unknown here: its ${NAME} stays as written, and a condition on it is undecided.
import type { CMakeArg } from "./buildSyntax";
import { switchBackend, valueBackend } from "./buildFlags";

export interface CMakeVar {
  /** The value, a list joined with `;`. */
  value: string;
  /** True when branches that cannot be told apart gave it different values (this is all of them). */
  unsure: boolean;
  /** The variables its value came through, for saying where targets came from. */
  via: string[];
  /** Some branch that may have run left it empty or unset. */
  maybeEmpty?: boolean;
  /** Set by something we do not evaluate (a function of the project's): its value is not known. */
  unknown?: boolean;
}

/**
 * `text` with every ${NAME} of a known variable replaced, once: a value was expanded when it was set, so
 * what it holds is not expanded again (`set(F "${F} -x")` on an unknown F keeps a literal `${F}`, which a
 * second pass would grow without end). A nested `${A_${B}}` is expanded from the inside, a level per pass.
 */
export function expand(
  text: string,
  vars: ReadonlyMap<string, CMakeVar>,
): { text: string; unsure: boolean; via: string[] } {
  let unsure = false;
  const via: string[] = [];
  const once = (t: string): string =>
    t.replace(/(?<!\$ENV)\$\{(\w+)\}/g, (all, name: string) => {
      const v = vars.get(name);
      if (!v || v.unknown) return all;
      unsure ||= v.unsure;
      via.push(name, ...v.via);
      return v.value;
    });
  // Only the written text's nested names take further passes: `${A_${B}}` → `${A_x}` → its value.
  let out = text;
  for (let depth = 0; depth < 4; depth++) {
    const nested = /\$\{\w*\$\{\w+\}\w*\}/.exec(out);
    if (!nested) break;
    out =
      out.slice(0, nested.index) +
      "${" +
      once(nested[0].slice(2, -1)) +
      "}" +
      out.slice(nested.index + nested[0].length);
  }
  return { text: once(out), unsure, via: [...new Set(via)] };
}

/** Sets `name` to the words joined as a list (unset when there are none, as set(NAME) does). */
export function setVar(
  vars: Map<string, CMakeVar>,
  name: string,
  words: readonly { text: string; unsure: boolean; via: string[] }[],
): void {
  if (words.length === 0) {
    vars.delete(name);
    return;
  }
  vars.set(name, {
    value: words.map((w) => w.text).join(";"),
    unsure: words.some((w) => w.unsure),
    via: [...new Set(words.flatMap((w) => w.via))],
  });
}

const unwrap = (w: string): string => /^\$\{(\w+)\}$/.exec(w)?.[1] ?? w;

/**
 * Whether a CUDA build takes an if()/elseif() branch: true for a CUDA switch (BUILD_CUDA, GGML_CUDA,
 * CMAKE_CUDA_COMPILER, `GPU_LANG STREQUAL "CUDA"`), false for a HIP/ROCm one, undefined otherwise.
 */
export function cmakeCondition(
  args: readonly CMakeArg[],
  vars: ReadonlyMap<string, CMakeVar>,
): boolean | undefined {
  const words = args.map((a) => a.text);
  let negate = false;
  while (words[0] === "NOT") {
    negate = !negate;
    words.shift();
  }
  let result: boolean | undefined;
  if (words.length === 1 && !args[args.length - 1]!.quoted) {
    const backend = switchBackend(unwrap(words[0]!));
    if (backend) result = backend === "cuda";
    else result = truthy(vars.get(unwrap(words[0]!)));
  } else if (words.length === 3 && /^(?:STREQUAL|EQUAL)$/.test(words[1]!)) {
    const left = vars.get(unwrap(words[0]!));
    const right = unwrap(words[2]!);
    const backend = valueBackend(right);
    if (left && !left.unsure && valueBackend(left.value))
      result = left.value.toLowerCase() === right.toLowerCase();
    else if (backend) result = backend === "cuda";
  }
  return result === undefined ? undefined : result !== negate;
}

const FALSE_CONSTANT = /^(?:|0|OFF|NO|FALSE|N|IGNORE|NOTFOUND|.*-NOTFOUND)$/i;

/**
 * if(VAR) on a variable the file sets: true when every branch gave it a value that is no false constant
 * (a value we cannot read, set by the user or a function, counts as given); undefined when we cannot tell.
 */
function truthy(v: CMakeVar | undefined): boolean | undefined {
  if (!v) return undefined;
  if (v.unknown) return true;
  const items = v.value.split(";");
  if (!v.maybeEmpty && items.every((i) => !FALSE_CONSTANT.test(i))) return true;
  return !v.unsure && !v.maybeEmpty && FALSE_CONSTANT.test(v.value) ? false : undefined;
}

// Is a file a code-generation template rather than CUDA source? Projects that generate kernels per type
// or per backend keep the template under a .cu/.cuh name (FBGEMM's embedding kernels, PyTorch's and
// TVM's codegen): Jinja block tags on lines of their own (`{% if is_rocm %}`, `{%- for t in types %}`)
// decide which lines the generated source gets. Read as C++, such a file compiles every arm at once (the
// ROCm arm as CUDA), so its findings are wrong: it is not linted, and the summary says so. A line that
// starts with `{%` is never C++ (`{` then `%` is no token sequence a statement can hold; the digraph for
// `{` is `<%`), so one such line with a Jinja keyword settles it.
// Cannot see: templates in other languages (Mako `%if`, m4, CMake's configure_file `@VAR@`), which read
// as C++ and are linted as such; a Jinja template whose only tags are `{{ … }}` substitutions.
const JINJA_TAG =
  /^[ \t]*\{%[-+]?[ \t]*(?:if|elif|else|endif|for|endfor|set|macro|endmacro|call|endcall|include|import|from|extends|block|endblock|filter|raw|with)\b/m;

/** "a Jinja code-generation template" when `text` is one, else undefined. */
export function codegenTemplate(text: string): string | undefined {
  // indexOf first: most files have no `{%`, and it is cheaper than the regex on every keystroke
  return text.includes("{%") && JINJA_TAG.test(text) ? "a Jinja code-generation template" : undefined;
}

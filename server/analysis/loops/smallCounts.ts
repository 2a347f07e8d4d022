// Names that count things a kernel has few of: experts, top-k picks, heads, beams, batch entries, groups,
// layers, and the chunks, partitions or splits a tensor is cut into (each of them is large). A loop or index bounded by one of them covers tens to thousands of elements, not the millions
// that make a loop bandwidth-bound or a 32-bit index overflow. A naming convention, not a proof: the
// rules that ask use it to stay quiet, never to report.
const SMALL_COUNT =
  /^(?:(?:num|n|max|total)_?)?(?:k|topk|top_k|experts?|heads?|kv_heads?|beams?|beam_width|batch(?:es|_size)?|bs|groups?|layers?|tokens_per_expert|classes|anchors|chunks|tensors|partitions|splits)(?:_?(?:num|count|size)|_per_[a-z]+)?$/i;

/** Does the name (a variable or a member, `p.num_experts`) count things a kernel has few of? */
export function isSmallCount(name: string): boolean {
  const last = name.split(/\.|->/).pop() ?? name;
  return SMALL_COUNT.test(last.trim());
}

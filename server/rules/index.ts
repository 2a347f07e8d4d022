// The rule registry: every rule module, in the order they run. (Placeholder until the rules land.)
import type { Rule } from "./rule";

export const rules: readonly Rule[] = [];

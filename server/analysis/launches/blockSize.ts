// Block sizes known at lint time: launch configurations and __launch_bounds__. Shared by the two
// block-size rules so each reports its own finding.
import type { Node } from "web-tree-sitter";
import type { Fix, LintContext, Rule } from "../../rules/rule";
import { Constants } from "../constants/constEval";
import { FileIndex, kernelLaunches } from "../source/fileIndex";
import type { Launch } from "./launches";

export interface KnownBlockSize {
  /** The node to report on. */
  readonly node: Node;
  dims: [number, number, number];
  /** A literal that alone sets the thread count, for the round-up fix (looked up only when needed). */
  literal(): Node | undefined;
  source: "launch" | "launch_bounds";
  /** A launch's grid size when it too is known at lint time (looked up only when needed). */
  grid?: () => [number, number, number] | undefined;
}

/**
 * A launch's block size read from its text (launches.ts): the argument's node is made only for a finding.
 * A class, not an object literal with a getter: each such literal gets a hidden class of its own, and
 * those cost the garbage collector more than the nodes saved.
 */
class PlainLaunchSize implements KnownBlockSize {
  readonly source = "launch";

  constructor(
    private readonly launch: Launch,
    readonly dims: [number, number, number],
    private readonly consts: Constants,
    /** The grid's text where it is plain, else undefined (its node is read then). */
    private readonly gridText: string | undefined,
  ) {}

  get node(): Node {
    return this.launch.config[1]!;
  }

  literal(): Node | undefined {
    return this.consts.sourceLiteral(this.node);
  }

  grid(): [number, number, number] | undefined {
    return this.gridText === undefined
      ? this.consts.dims(this.launch.config[0]!)
      : this.consts.dimsOfPlain(this.gridText);
  }
}

const LAUNCH_BOUNDS: ReadonlySet<string> = new Set(["launch_bounds"]);

export function knownBlockSizes(ctx: LintContext): KnownBlockSize[] {
  const idx = FileIndex.of(ctx);
  return idx.shared("blockSizes", () => findBlockSizes(idx));
}

function findBlockSizes(idx: FileIndex): KnownBlockSize[] {
  const consts = Constants.of(idx);
  const out: KnownBlockSize[] = [];
  const launches = kernelLaunches(idx);
  // The names launches give as their block size, found in one scan of the text.
  consts.prefetch(launches.flatMap((l) => l.texts?.[1] ?? []));
  for (const launch of launches) {
    const texts = launch.texts;
    if (texts && texts[1] !== undefined) {
      // Read from the text: the node only for a finding (and the grid's only where it is not plain).
      const dims = consts.dimsOfPlain(texts[1]);
      if (dims) out.push(new PlainLaunchSize(launch, dims, consts, texts[0]));
      continue;
    }
    // A call of a function that is no cast has no value: its nodes need not be made (a common block size).
    const callee = launch.callee(1);
    if (callee !== undefined && !Constants.evaluatesCall(callee)) continue;
    const [grid, block] = launch.config;
    if (!block || !grid) continue;
    const dims = consts.dims(block);
    if (dims)
      out.push({
        node: block,
        dims,
        literal: () => consts.sourceLiteral(block),
        source: "launch",
        grid: () => consts.dims(grid),
      });
  }
  for (const at of idx.words("__launch_bounds__")) {
    const end = at + 17; // "__launch_bounds__".length
    const lb = idx.ownerOf(at, end, LAUNCH_BOUNDS) ?? idx.nodeAt(at, end).parent;
    if (lb?.type !== "launch_bounds") continue;
    const first = lb.namedChild(0);
    if (!first) continue;
    const v = consts.value(first);
    if (v !== undefined)
      out.push({
        node: first,
        dims: [v, 1, 1],
        literal: () => consts.sourceLiteral(first),
        source: "launch_bounds",
      });
  }
  return out;
}

/**
 * A rule over the block sizes known at lint time: `judge` gives a size's finding (message and fixes),
 * or nothing. The two block-size rules share the sizes and differ only in their judgement.
 */
export function blockSizeRule(
  meta: Omit<Rule, "check">,
  judge: (b: KnownBlockSize) => { message: string; fixes?: Fix[] } | undefined,
): Rule {
  return {
    ...meta,
    check(ctx) {
      for (const b of knownBlockSizes(ctx)) {
        const finding = judge(b);
        if (finding) ctx.report({ node: b.node, ...finding });
      }
    },
  };
}

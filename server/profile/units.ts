// Number and unit normalisation for Nsight Compute exports. ncu prints values in "readable" units
// (us, Tbyte/s, Kbyte, Ghz) unless --print-units base is given, and the unit can change from one
// launch to the next for the same metric; everything is converted to one base unit per dimension
// here so that numbers from two exports (or two launches) compare directly.
import { clip, NcuCsvError } from "./ncuCsvError";

/** A value as found in the export: a number in its base unit, a text value, or not available. */
export type MetricValue = number | string | null;

export interface Normalised {
  /** The base unit: "ns", "byte", "byte/s", "Hz", "%", or the original unit when it has no prefix to strip. */
  unit: string;
  value: MetricValue;
}

const SI: Record<string, number> = { "": 1, K: 1e3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15 };
// Time units to seconds.
const TIME: Record<string, number> = {
  s: 1,
  second: 1,
  ms: 1e-3,
  msecond: 1e-3,
  us: 1e-6,
  usecond: 1e-6,
  ns: 1e-9,
  nsecond: 1e-9,
};

/** Dimensionless or counting units ncu uses; they pass through unchanged. */
const PLAIN =
  /^(%|cycles?|inst|warps?|threads?|blocks?|registers?|sectors?|requests?|clusters?|SM|branch(es)?|pass(es)?|samples?|wavefronts?|transactions?|instructions?|ratio|x)$/;

// Both run in time linear in the text, whatever it holds (an export is untrusted input): no part
// of either can match what another part next to it matches. The decimal pattern was
// (\d+\.?\d*|...), where \d+ and \d* share every digit of a number without a point: on 100,000
// digits and an "x" V8 backtracked for 50 s.
const GROUPED = /^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;
const DECIMAL = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

/**
 * Parses one ncu number: "113,457", "106,716.53", "3.20", "1e+06", "-0.5". Thousands separators are
 * accepted only in their proper places, so "1,23" (a decimal comma from another locale) is not
 * silently read as 123. Returns undefined for anything that is not a number.
 */
export function parseNcuNumber(text: string): number | undefined {
  if (isPlainDecimal(text)) return Number(text);
  const t = text.trim();
  if (GROUPED.test(t)) return Number(t.replace(/,/g, ""));
  if (DECIMAL.test(t)) return Number(t);
  return undefined;
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/**
 * "-12", "3.20", "7.": the common case of the second pattern above, checked without a regex (an
 * export has a million of them). Anything else takes the regexes.
 */
function isPlainDecimal(t: string): boolean {
  let i = t.charCodeAt(0) === 0x2d ? 1 : 0;
  const digits = i;
  while (i < t.length && isDigit(t.charCodeAt(i))) i++;
  if (i === digits) return false;
  if (i < t.length && t.charCodeAt(i) === 0x2e) i++;
  while (i < t.length && isDigit(t.charCodeAt(i))) i++;
  return i === t.length;
}

export function isNotAvailable(text: string): boolean {
  return /^(n\/a|na|-|no data)$/i.test(text.trim());
}

/** Factor and base unit for a unit string, or undefined when the unit is not one we understand. */
export function unitFactor(unit: string): { factor: number; base: string } | undefined {
  const u = unit.trim();
  if (u === "") return { factor: 1, base: "" };
  const slash = u.indexOf("/");
  const num = slash < 0 ? u : u.slice(0, slash);
  const den = slash < 0 ? undefined : u.slice(slash + 1);

  // Frequencies: Ghz, Mhz, hz, and "cycle/nsecond" (--print-units base on some versions).
  const hz = /^([KMGkT]?)hz$/i.exec(num);
  if (hz && den === undefined) return { factor: SI[hz[1]!.toUpperCase()] ?? 1, base: "Hz" };
  if (num === "cycle" && den !== undefined && TIME[den] !== undefined)
    return { factor: 1 / TIME[den], base: "Hz" };

  let factor: number;
  let base: string;
  const bytes = /^([KMGTPk]?)(byte|B)$/.exec(num);
  const time = TIME[num];
  if (bytes) {
    factor = SI[bytes[1]!]!;
    base = "byte";
  } else if (time !== undefined) {
    factor = time * 1e9;
    base = "ns";
  } else if (PLAIN.test(num)) {
    factor = 1;
    base = num;
  } else {
    return undefined;
  }
  if (den === undefined) return { factor, base };
  const perTime = TIME[den];
  if (perTime !== undefined) {
    // A rate: express it per second.
    if (base === "ns") return undefined; // time per time is not something ncu prints
    return { factor: factor / perTime, base: `${base}/s` };
  }
  const denPrefixed = /^([KMGT])(byte)$/.exec(den);
  if (denPrefixed) return { factor: factor / SI[denPrefixed[1]!]!, base: `${base}/byte` };
  if (PLAIN.test(den)) return { factor, base: `${base}/${den}` };
  return undefined;
}

type UnitFactor = (unit: string) => { factor: number; base: string } | undefined;

/**
 * unitFactor, remembered per unit text: an export repeats a few dozen units on every row, and the
 * base unit strings it hands out are shared rather than built again for each value.
 */
export function cachedUnitFactor(): UnitFactor {
  const known = new Map<string, { factor: number; base: string } | undefined>();
  return (unit) => {
    if (known.has(unit)) return known.get(unit);
    const f = unitFactor(unit);
    known.set(unit, f);
    return f;
  };
}

/**
 * Normalises a value and its unit. Text values ("PolicySpread", "all") stay text; "n/a" becomes
 * null. Throws when a numeric value carries a unit we cannot convert: a wrong number is worse than
 * no number.
 */
export function normalise(
  valueText: string,
  unit: string,
  where: () => string,
  factorOf: UnitFactor = unitFactor,
): Normalised {
  const n = parseNcuNumber(valueText);
  // No "n/a" spelling parses as a number, so this is only asked of what did not.
  if (n === undefined && isNotAvailable(valueText))
    return { unit: factorOf(unit)?.base ?? unit, value: null };
  if (n === undefined) {
    if (unit.trim() !== "" && factorOf(unit)?.base !== "")
      throw new NcuCsvError(
        `${where()}: value "${clip(valueText)}" with unit "${clip(unit)}" is not a number`,
      );
    return { unit, value: valueText };
  }
  const f = factorOf(unit);
  if (!f) throw new NcuCsvError(`${where()}: unknown unit "${clip(unit)}"`);
  return { unit: f.base, value: n * f.factor };
}

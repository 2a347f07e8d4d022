// How the profile panel writes figures: durations, percentages, SI prefixes, launch dimensions and
// a metric's value in its unit; "n/a" where ncu had none.
import { formatNs } from "../../server/util/formatNs";

export const time = (ns: number | null): string => (ns === null ? "n/a" : formatNs(ns));
export const pct = (v: number | null): string => (v === null ? "n/a" : `${v.toFixed(1)} %`);
export const dim = (d: [number, number, number] | null): string => (d ? `(${d.join(", ")})` : "n/a");

export function si(v: number | null, unit: string): string {
  if (v === null) return "n/a";
  const prefixes: [number, string][] = [
    [1e12, "T"],
    [1e9, "G"],
    [1e6, "M"],
    [1e3, "K"],
  ];
  for (const [f, p] of prefixes) if (Math.abs(v) >= f) return `${(v / f).toFixed(2)} ${p}${unit}`;
  return `${v.toFixed(2)} ${unit}`;
}

export function formatValue(value: number | string | null, unit: string): string {
  if (value === null) return "n/a";
  if (typeof value === "string") return value;
  if (unit === "ns") return time(value);
  if (unit === "%") return `${value.toFixed(2)} %`;
  if (unit === "byte" || unit === "byte/s" || unit === "Hz")
    return si(value, unit === "Hz" ? "Hz" : unit === "byte" ? "B" : "B/s");
  return `${Number.isInteger(value) ? value.toLocaleString("en-US") : value.toFixed(2)}${unit ? ` ${unit}` : ""}`;
}

// The profile panel's charts: a titled box holding one chart, horizontal bar charts of percentages,
// and the theme's chart colours.
import { Chart, type ChartConfiguration } from "chart.js";
import { addChart } from "../shared/charts";
import { el, themeColor } from "../shared/dom";

export const color = {
  blue: (): string => themeColor("--vscode-charts-blue", "#3794ff"),
  orange: (): string => themeColor("--vscode-charts-orange", "#d18616"),
  green: (): string => themeColor("--vscode-charts-green", "#89d185"),
  purple: (): string => themeColor("--vscode-charts-purple", "#b180d7"),
  red: (): string => themeColor("--vscode-charts-red", "#f14c4c"),
  fg: (): string => themeColor("--vscode-foreground", "#ccc"),
};

/** A chart under an h3 `title`, `height` pixels tall; `id` is its data-chart and its name in `rendered`. */
export function chartBox(
  parent: HTMLElement,
  id: string,
  title: string,
  config: ChartConfiguration,
  height = 220,
): void {
  const box = el("div", undefined, "chart");
  box.dataset["chart"] = id;
  box.append(el("h3", title));
  const holder = el("div", undefined, "canvas");
  holder.style.height = `${height}px`;
  const canvas = el("canvas");
  holder.append(canvas);
  box.append(holder);
  parent.append(box);
  Chart.defaults.color = color.fg();
  addChart(id, canvas, config);
}

/** Horizontal bars, one dataset per series (a legend when there are several); `max` caps the axis. */
export function hbar(
  labels: string[],
  datasets: { label: string; data: (number | null)[]; color: string }[],
  max?: number,
): ChartConfiguration {
  return {
    type: "bar",
    data: {
      labels,
      datasets: datasets.map((d) => ({ label: d.label, data: d.data, backgroundColor: d.color })),
    },
    options: {
      indexAxis: "y",
      animation: false,
      maintainAspectRatio: false,
      scales: { x: { beginAtZero: true, ...(max !== undefined ? { max } : {}) } },
      plugins: { legend: { display: datasets.length > 1 } },
    },
  };
}

// Chart.js for every panel: the controllers, elements and scales the panels use, registered once,
// and the charts on the page, so a redraw destroys the old ones and reports which it drew.
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartConfiguration,
  Filler,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  LogarithmicScale,
  PointElement,
  ScatterController,
  Tooltip,
} from "chart.js";

Chart.register(
  BarController,
  BarElement,
  CategoryScale,
  LinearScale,
  LogarithmicScale,
  LineController,
  LineElement,
  PointElement,
  ScatterController,
  Legend,
  Tooltip,
  Filler,
);

let live: { id: string; chart: Chart }[] = [];

/** Draws a chart on `canvas`; `id` names it in the `rendered` message. */
export function addChart(id: string, canvas: HTMLCanvasElement, config: ChartConfiguration): void {
  live.push({ id, chart: new Chart(canvas, config) });
}

/** The ids of the charts drawn since the last `clearCharts`. */
export const drawnCharts = (): string[] => live.map((c) => c.id);

export function clearCharts(): void {
  for (const c of live) c.chart.destroy();
  live = [];
}

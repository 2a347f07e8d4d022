/** Bad input to the occupancy calculator: an unknown architecture, a negative size. */
export class OccupancyInputError extends Error {
  override name = "OccupancyInputError";
}

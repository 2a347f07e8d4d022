// The nvcc command line for one cubin of the occupancy sweep (test/gpu/occupancySweep.cu), shared by
// the fixture builder and the GPU test so both compile the same thing: registers capped, ptxas verbose.
export function sweepCubinArgs(arch: string, maxrregcount: number, out: string, source: string): string[] {
  return ["-cubin", `-arch=${arch}`, `-maxrregcount=${maxrregcount}`, "-Xptxas", "-v", "-o", out, source];
}

/** The simulator's defaults, shared by its scenario timeline and its server. */

/** The key accepted by default. */
export const DEFAULT_SIMULATOR_KEY = 'demo-key';
/** The networks known by default. */
export const DEFAULT_SIMULATOR_NETWORKS: readonly string[] = ['edge-1', 'edge-2'];
/** The seed used when none is given, so that two runs without one are alike. */
export const DEFAULT_SIMULATOR_SEED = 20240601;

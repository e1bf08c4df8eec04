// What the resampling kernels that read a measurement share (resample_count,
// resample_histogram): its bindings and the counts of one system.

#import resample

@group(0) @binding(0) var<storage, read> params: ResampleParams;
// `[slot][g][lane]` (up, satisfied) as 64-bit (lo, hi) pairs, as the observables kernel counts.
@group(0) @binding(1) var<storage, read> observations: array<u32>;
// Per system: its copy-map entry, `g * 32 + lane` (AMSC) or `g` (SMSC).
@group(0) @binding(2) var<storage, read> positions: array<u32>;

// Which count of an observation pair: the up spins or the satisfied bonds.
const UP: u32 = 0u;
const SATISFIED: u32 = 2u;

// SMSC: a system's counts are the sum of its word system's 32 site lanes.
override SUM_LANES: bool = false;

// Count `which` (UP or SATISFIED) of the measurement at `params.observation_base` for the
// system at `position`; the low words suffice (annealed lattices have fewer than 2^32 bonds).
fn count_at(position: u32, which: u32) -> u32 {
    if !SUM_LANES {
        return observations[(params.observation_base + position) * 4u + which];
    }
    var sum = 0u;
    for (var lane = 0u; lane < 32u; lane++) {
        sum += observations[(params.observation_base + position * 32u + lane) * 4u + which];
    }
    return sum;
}

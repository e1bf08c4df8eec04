// Population annealing's measurement as histograms: every replica of a population (replica
// j of block b with j below the population's size) adds one to the bins of its satisfied-bond
// count and of its up-spin count, so the host reads two histograms per population instead of
// the counts of every system (CPU twin: sim::resampling::PopulationLevels::of).

#import dispatch
#import resample_observations

@group(0) @binding(3) var<storage, read> sizes: array<u32>;
// `[block][satisfied]` (BOND_BINS per block) and `[block][up]` (SITE_BINS per block).
@group(0) @binding(4) var<storage, read_write> satisfied_bins: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> up_bins: array<atomic<u32>>;

// Bonds + 1 and sites + 1 of one lattice.
override BOND_BINS: u32 = 1u;
override SITE_BINS: u32 = 1u;

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let s = thread_in_system(thread);
    if s >= SYSTEMS {
        return;
    }
    let b = s / SLOTS;
    if s % SLOTS >= sizes[b] {
        return;
    }
    let position = positions[s];
    atomicAdd(&satisfied_bins[b * BOND_BINS + count_at(position, SATISFIED)], 1u);
    atomicAdd(&up_bins[b * SITE_BINS + count_at(position, UP)], 1u);
}

// The exact integer sums of the overlap of every replica pair of a glass of discrete states
// (engine::vector::StateSums): pair p of a temperature and sample joins replicas p and
// p + REPLICAS/2. Workgroups of z = system with replica r < REPLICAS/2 sum the pair of r (the
// others return); each thread counts, over the sites thread, thread + stride, ..., the sites in
// state a in one replica and b in the other and sums their phases, then adds its sums to the
// pair's 64-bit counts (any order gives the same sums), 64 pairs of states a pass. The counts are
// the systems' (2 count_words() per pair, two systems' worth). Empty sites (the vacancy, state
// STATES) count in none. CPU twin: src/engine/cpu/discrete_overlap.rs.
// Counts of pair k from word k * 2 count_words(), in pairs: the sites of states (a, b) at
// a STATES + b, then their Fourier components [a STATES + b][d][cos, sin] from state_pairs(),
// after the pairs' counts.

#import vector_sums
#import counters

// Pairs of states a thread counts in one pass over its sites: a model of more than 8 states
// takes ceil(STATES^2 / 64) passes, each counting the next 64 pairs (the thread's arrays stay
// the same size whatever q).
const PASS_PAIRS: u32 = 64u;

// The pairs of states the counts hold; their Fourier components follow their counts
// (engine::vector_gpu::counters).
fn state_pairs() -> u32 {
    return STATES * STATES;
}

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let z = layer(params, thread);
    let replicas = replica_pair(z);
    if !replicas.sums {
        return;
    }
    let stride = threads_per_system(thread);
    let out = replicas.pair * 2u * count_words();
    for (var first = 0u; first < state_pairs(); first += PASS_PAIRS) {
        var counts = array<u32, PASS_PAIRS>();
        var fourier = array<vec2<u32>, 384>();
        for (var i = thread_in_system(thread); i < lattice_sites(); i += stride) {
            let a = load_state(z, i);
            let b = load_state(replicas.partner, i);
            let c = a * STATES + b;
            if a == STATES || b == STATES || c < first || c >= first + PASS_PAIRS {
                continue;
            }
            let k = c - first;
            counts[k] += 1u;
            for (var d = 0u; d < DIMS; d++) {
                let x = coordinate(i, d);
                let f = 2u * (3u * k + d);
                fourier[f] = wide_add(fourier[f], wide_from_i32(phases[x]));
                fourier[f + 1u] = wide_add(fourier[f + 1u], wide_from_i32(phases[L + x]));
            }
        }
        for (var k = 0u; k < min(PASS_PAIRS, state_pairs() - first); k++) {
            let c = first + k;
            if counts[k] > 0u {
                add_u64(out + 2u * c, counts[k]);
            }
            for (var j = 0u; j < 6u; j++) {
                add_i64(out + 2u * (state_pairs() + 6u * c + j), fourier[6u * k + j]);
            }
        }
    }
}

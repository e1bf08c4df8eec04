// The exact integer sums of the overlap of every replica pair of a glass of discrete states
// (engine::vector::StateSums), the twin of discrete_overlap.wgsl: pair p of a temperature and
// sample joins replicas p and p + REPLICAS/2. Blocks of z = system with replica r < REPLICAS/2 sum
// the pair of r (the others return); each thread counts, over the sites thread, thread + stride,
// ..., the sites in state a in one replica and b in the other and sums their phases in 64 bits,
// then adds its sums to the pair's counters, the systems' counters reused (OVERLAP_COUNTERS per
// pair, two systems' worth), 64 pairs of states a pass. Empty sites (the vacancy, state STATES)
// count in none. CPU twin: src/engine/cpu/discrete_overlap.rs.
// Counters of pair k from k * OVERLAP_COUNTERS: the sites of states (a, b) at a STATES + b,
// then their Fourier components [a STATES + b][d][cos, sin] from PAIR_FOURIER, after the pairs.

#include "vector_sums.cuh"

constexpr unsigned OVERLAP_COUNTERS = 2u * COUNTERS;
// Pairs of states a thread counts in one pass over its sites: a model of more than 8 states
// takes ceil(PAIRS / 64) passes, each counting the next 64 pairs (the thread's arrays stay the
// same size whatever q).
constexpr unsigned PASS_PAIRS = 64u;
constexpr unsigned PAIRS = STATES * STATES;
constexpr unsigned PAIR_FOURIER = PAIRS;

extern "C" __global__ void discrete_overlap(DispatchParams params, const int* spins,
                                            unsigned long long* counts, const int* lookups) {
    const unsigned z = layer(params);
    const ReplicaPair replicas = replica_pair(z);
    if (!replicas.sums) {
        return;
    }
    const unsigned stride = threads_per_system();
    unsigned long long* out =
        counts + static_cast<unsigned long long>(replicas.pair) * OVERLAP_COUNTERS;
    for (unsigned first = 0u; first < PAIRS; first += PASS_PAIRS) {
        long long sites[PASS_PAIRS] = {};
        long long fourier[6u * PASS_PAIRS] = {};
        for (unsigned i = thread_in_system(); i < lattice_sites(); i += stride) {
            const unsigned a = load_state(spins, z, i);
            const unsigned b = load_state(spins, replicas.partner, i);
            const unsigned c = a * STATES + b;
            if (a == STATES || b == STATES || c < first || c >= first + PASS_PAIRS) {
                continue;
            }
            const unsigned k = c - first;
            sites[k] += 1;
            for (unsigned d = 0u; d < DIMS; d++) {
                const unsigned x = coordinate(i, d);
                fourier[2u * (3u * k + d)] += lookups[x];
                fourier[2u * (3u * k + d) + 1u] += lookups[L + x];
            }
        }
        const unsigned pairs = PAIRS - first < PASS_PAIRS ? PAIRS - first : PASS_PAIRS;
        add_sums(out + first, sites, pairs);
        add_sums(out + PAIR_FOURIER + 6u * first, fourier, 6u * pairs);
    }
}

// The exact integer sums of every lattice of discrete states (engine::vector::VectorObservation),
// the twin of discrete_observables.wgsl: each thread sums the sites thread, thread + stride, ...
// in 64 bits, then adds its sums to the system's counters (two's complement: signed sums add as
// unsigned). CPU twin: src/engine/cpu/discrete_observables.rs. Counters of system z from
// OBSERVATION: bonds[d] (sum J P(s_i, s_{i+d}), table units), the sum of the values s(a)
// (magnetisation[0]) and its Fourier component fourier[d][0][cos, sin]; the sites in each state
// from STATES_COUNTER, each state's Fourier components [a][d][cos, sin] from
// STATE_FOURIER_COUNTER, each state's staggered count (the sum of the sublattice signs) from
// STAGGERED_COUNTER. Empty sites (the vacancy, state STATES) count in none of them.

#include "vector_sums.cuh"

constexpr unsigned OBSERVATION = 4u;
constexpr unsigned SUMS = 27u;
constexpr unsigned MAGNETISATION = 6u;
constexpr unsigned FOURIER = 9u;
// After the accepted moves, three spare counters and the observation's 31 (engine::vector).
constexpr unsigned STATES_COUNTER = 35u;
constexpr unsigned STATE_FOURIER_COUNTER = STATES_COUNTER + STATES;
constexpr unsigned STAGGERED_COUNTER = STATES_COUNTER + 7u * STATES;
constexpr unsigned STATE_COUNT = STATES > 0u ? STATES : 1u;

extern "C" __global__ void discrete_observables(DispatchParams params, const int* spins,
                                                unsigned long long* counts,
                                                const int* couplings, const int* lookups) {
    const unsigned z = layer(params);
    const unsigned stride = threads_per_system();
    long long sums[SUMS] = {};
    long long states[STATE_COUNT] = {};
    long long state_fourier[6u * STATE_COUNT] = {};
    long long staggered[STATE_COUNT] = {};
    for (unsigned i = thread_in_system(); i < lattice_sites(); i += stride) {
        const unsigned a = load_state(spins, z, i);
        if (a == STATES) {
            continue;
        }
        states[a] += 1;
        staggered[a] += sublattice_sign(i);
        const long long value = state_value(lookups, a);
        sums[MAGNETISATION] += value;
        const Neighbours near = neighbours(i);
        for (unsigned d = 0u; d < directions(); d++) {
            const unsigned b = load_state(spins, z, near.site[2u * d + 1u]);
            const long long J = coupling(couplings, z, i * directions() + d);
            sums[d] += J * state_pair(lookups, a, b);
            if (d >= DIMS) {
                continue;
            }
            const unsigned x = coordinate(i, d);
            sums[FOURIER + 6u * d] += value * lookups[x];
            sums[FOURIER + 6u * d + 1u] += value * lookups[L + x];
            state_fourier[2u * (3u * a + d)] += lookups[x];
            state_fourier[2u * (3u * a + d) + 1u] += lookups[L + x];
        }
    }
    unsigned long long* out = counts + static_cast<unsigned long long>(z) * COUNTERS;
    add_sums(out + OBSERVATION, sums, SUMS);
    add_sums(out + STATES_COUNTER, states, STATES);
    add_sums(out + STATE_FOURIER_COUNTER, state_fourier, 6u * STATES);
    add_sums(out + STAGGERED_COUNTER, staggered, STATES);
}

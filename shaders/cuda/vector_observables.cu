// The exact integer sums of every vector-spin lattice (engine::vector::VectorObservation), the
// twin of vector_observables.wgsl: each thread sums the sites thread, thread + stride, ... in
// 64 bits, then adds its sums to the system's counters (two's complement: signed sums add as
// unsigned) and its largest norm deviation by atomicMax. CPU twin:
// src/engine/cpu/vector_observables.rs. Counters of system z from OBSERVATION: bonds[3],
// twists[3] (per bond class: on the honeycomb lattice the x bonds of sites of odd x + y are the
// third), magnetisation[3], fourier[d][a][cos, sin], staggered[3] (the magnetisation weighted
// by the sublattice sign), the norm deviation (saturated at 2^32 - 1 as the CPU's is).

#include "vector_sums.cuh"

constexpr unsigned OBSERVATION = 4u;
constexpr unsigned SUMS = 30u;
constexpr unsigned BONDS = 0u;
constexpr unsigned TWISTS = 3u;
constexpr unsigned MAGNETISATION = 6u;
constexpr unsigned FOURIER = 9u;
constexpr unsigned STAGGERED = 27u;

// CouplingScale::bond_measure: a measured bond product times the coupling J, floored by the
// coupling's fraction bits.
__device__ __forceinline__ long long bond_measure(long long J, long long product) {
    return (J * (product >> MEASURE_SHIFT)) >> COUPLING_BITS;
}

// |s . s - 1| >> MEASURE_SHIFT, saturated to 32 bits; 0 for an empty site.
__device__ __forceinline__ unsigned long long norm_deviation(const Vector& s) {
    if (is_empty(s)) {
        return 0ull;
    }
    const long long deviation = dot(s, s) - static_cast<long long>(ONE) * ONE;
    const unsigned long long magnitude =
        static_cast<unsigned long long>(deviation < 0 ? -deviation : deviation) >> MEASURE_SHIFT;
    return magnitude > 0xffffffffull ? 0xffffffffull : magnitude;
}

extern "C" __global__ void vector_observables(DispatchParams params, const int* spins,
                                              unsigned long long* counts, const int* couplings,
                                              const int* phases) {
    const unsigned z = layer(params);
    const unsigned stride = threads_per_system();
    long long sums[SUMS] = {};
    unsigned long long deviation = 0ull;
    for (unsigned i = thread_in_system(); i < lattice_sites(); i += stride) {
        const Vector s = load_spin(spins, z, i);
        const int sign = sublattice_sign(i);
        for (unsigned a = 0u; a < COMPONENTS; a++) {
            sums[MAGNETISATION + a] += s.c[a];
            sums[STAGGERED + a] += sign * s.c[a];
        }
        const Neighbours near = neighbours(i);
        for (unsigned d = 0u; d < directions(); d++) {
            const Vector t = load_spin(spins, z, near.site[2u * d + 1u]);
            const long long J = coupling(couplings, z, i * directions() + d);
            sums[BONDS + d] += bond_measure(J, dot(s, t));
            const long long twist = static_cast<long long>(s.c[0]) * t.c[1] -
                                    static_cast<long long>(s.c[1]) * t.c[0];
            const long long measured = bond_measure(J, twist);
            if (HONEYCOMB == 1u && d == 0u) {
                // Both slots by a select: a slot chosen at run time would put sums in memory.
                sums[TWISTS] += sign < 0 ? 0ll : measured;
                sums[TWISTS + 2u] += sign < 0 ? measured : 0ll;
            } else {
                sums[TWISTS + d] += measured;
            }
            if (d >= DIMS) {
                continue;
            }
            const unsigned x = coordinate(i, d);
            const long long cosine = phases[x];
            const long long sine = phases[L + x];
            for (unsigned a = 0u; a < COMPONENTS; a++) {
                sums[FOURIER + 2u * (3u * d + a)] += (s.c[a] * cosine) >> FRACTION_BITS;
                sums[FOURIER + 2u * (3u * d + a) + 1u] += (s.c[a] * sine) >> FRACTION_BITS;
            }
        }
        const unsigned long long own = norm_deviation(s);
        deviation = own > deviation ? own : deviation;
    }
    unsigned long long* out = counts + static_cast<unsigned long long>(z) * COUNTERS + OBSERVATION;
    add_sums(out, sums, SUMS);
    atomicMax(out + SUMS, deviation);
}

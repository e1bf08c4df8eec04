// The exact integer sums of the tensor overlap of every replica pair of a spin glass
// (engine::vector::VectorOverlap), the twin of vector_overlap.wgsl: pair p of a temperature and
// sample joins replicas p and p + REPLICAS/2. Blocks of z = system with replica r < REPLICAS/2
// sum the pair of r (the others return); each thread sums the sites thread, thread + stride,
// ... in 64 bits, then adds its sums to the pair's counters, the systems' counters reused
// (OVERLAP_COUNTERS per pair, two systems' worth). CPU twin: src/engine/cpu/vector_overlap.rs.
// Counters of pair k from k * OVERLAP_COUNTERS: q[mu][nu] (3 mu + nu), then
// fourier[d][mu][nu][cos, sin] from FOURIER.

#include "vector_sums.cuh"

constexpr unsigned OVERLAP_COUNTERS = 2u * COUNTERS;
constexpr unsigned SUMS = 63u;
constexpr unsigned FOURIER = 9u;

extern "C" __global__ void vector_overlap(DispatchParams params, const int* spins,
                                          unsigned long long* counts, const int* phases) {
    const unsigned z = layer(params);
    const ReplicaPair replicas = replica_pair(z);
    if (!replicas.sums) {
        return;
    }
    const unsigned stride = threads_per_system();
    long long sums[SUMS] = {};
    for (unsigned i = thread_in_system(); i < lattice_sites(); i += stride) {
        const Vector s = load_spin(spins, z, i);
        const Vector t = load_spin(spins, replicas.partner, i);
        for (unsigned mu = 0u; mu < COMPONENTS; mu++) {
            for (unsigned nu = 0u; nu < COMPONENTS; nu++) {
                const unsigned k = 3u * mu + nu;
                const long long q = (static_cast<long long>(s.c[mu]) * t.c[nu]) >> MEASURE_SHIFT;
                sums[k] += q;
                for (unsigned d = 0u; d < DIMS; d++) {
                    const unsigned x = coordinate(i, d);
                    const unsigned f = FOURIER + 2u * (9u * d + k);
                    sums[f] += (q * phases[x]) >> FRACTION_BITS;
                    sums[f + 1u] += (q * phases[L + x]) >> FRACTION_BITS;
                }
            }
        }
    }
    unsigned long long* out =
        counts + static_cast<unsigned long long>(replicas.pair) * OVERLAP_COUNTERS;
    add_sums(out, sums, SUMS);
}

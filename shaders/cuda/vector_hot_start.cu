// The hot start of vector spins, the twin of vector_hot_start.wgsl: site i of system z takes the
// first usable uniform proposal of blocks (i, 0, VectorInitialSpins, attempt, 0,
// global_index(z)), the unit vector along the first axis where none is. CPU twin:
// src/engine/cpu/vector_hot_start.rs.

#include "vector_site.cuh"

extern "C" __global__ void vector_hot_start(DispatchParams params, int* spins) {
    const unsigned i = thread_in_system();
    const unsigned z = blockIdx.z;
    if (i >= lattice_sites()) {
        return;
    }
    const uint2 key = make_uint2(params.seed_lo, params.seed_hi);
    const unsigned batch = global_index(z);
    Vector s = {{ONE, 0, 0}};
    for (unsigned attempt = 0u; attempt < PROPOSAL_ATTEMPTS; attempt++) {
        const uint4 counter =
            philox_counter(i, 0u, PURPOSE_VECTOR_INITIAL_SPINS, attempt << 1u, batch);
        const Unit proposed = propose(philox4x32_10(counter, key), s, UNIFORM);
        if (proposed.ok) {
            s = proposed.v;
            break;
        }
    }
    store_spin(spins, z, i, s);
}

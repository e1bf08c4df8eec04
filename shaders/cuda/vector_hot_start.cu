// The hot start of vector spins, the twin of vector_hot_start.wgsl: site i of system z takes the
// uniform proposal of block (i, 0, VectorInitialSpins, 0, 0, global_index(z)) (the unit vector
// along the first axis where none is: never); a discrete state the state mulhi(w0, q) of its
// word 0. CPU twin: src/engine/cpu/vector_hot_start.rs.

#include "vector_site.cuh"

extern "C" __global__ void vector_hot_start(DispatchParams params, int* spins,
                                             const int* lookups) {
    load_quarter_turns(lookups);
    __syncthreads();
    const unsigned i = thread_in_system();
    const unsigned z = layer(params);
    if (i >= lattice_sites()) {
        return;
    }
    const uint2 key = make_uint2(params.seed_lo, params.seed_hi);
    const uint4 counter = philox_counter(i, 0u, PURPOSE_VECTOR_INITIAL_SPINS, 0u, global_index(z));
    const uint4 words = philox4x32_10(counter, key);
    if (STATES > 0u) {
        spins[static_cast<unsigned long long>(z) * lattice_sites() + i] =
            static_cast<int>(__umulhi(words.x, STATES));
        return;
    }
    const Vector none = {{0, 0, 0}};
    const Unit proposed = propose(words, none, UNIFORM);
    const Vector axis = {{ONE, 0, 0}};
    const Vector s = proposed.ok ? proposed.v : axis;
    store_spin(spins, z, i, s);
}

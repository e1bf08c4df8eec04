// Parallel tempering's exchange of vector spins, the twin of vector_exchange.wgsl: system z swaps
// its lattice with system partners[z] where that is above z, so each accepted pair is moved
// once, by its lower system; a system whose partner is itself keeps its spins. CPU twin:
// src/engine/cpu/vector_exchange.rs. One thread per spin word of a system.

#include "vector_site.cuh"

extern "C" __global__ void vector_exchange(DispatchParams params, int* spins,
                                           const unsigned* partners) {
    const unsigned word = thread_in_system();
    const unsigned z = layer(params);
    const unsigned words = COMPONENTS * lattice_sites();
    const unsigned partner = partners[z];
    if (word >= words || partner <= z) {
        return;
    }
    const unsigned long long a = static_cast<unsigned long long>(z) * words + word;
    const unsigned long long b = static_cast<unsigned long long>(partner) * words + word;
    const int kept = spins[a];
    spins[a] = spins[b];
    spins[b] = kept;
}

// What the clock spins' cluster kernels share (clock_bonds, clock_flip), the twin of
// clock.wgsl: Wolff's embedding of the clock model (src/engine/clusters.rs). The kernels take
// the cluster kernels' arguments (cluster.cuh) on the vector engine's spins, two components a
// site (vector_spins.cuh).

#include "cluster_draws.cuh"
#include "vector.cuh"
#include "vector_spins.cuh"

// Words of a temperature's acceptance table (fixed::TABLE_LEN): the activation argument holds
// one a temperature.
constexpr unsigned TABLE_WORDS = 4u * TABLE_BYTE;

// engine::clusters::clock_mirror: m = mulhi(w, q), w word 2 of the update's Wolff block
// `words` (wolff_block).
__device__ __forceinline__ unsigned clock_mirror(const uint4& words) {
    return __umulhi(words.z, CLOCK);
}

// The spin of the state that mirror m reflects s's state k into, (m - k) mod q
// (engine::clusters::reflected_state; the spin as vector_metropolis::clock_spin makes it).
__device__ __forceinline__ Vector reflected(const Vector& s, unsigned mirror) {
    const unsigned k = clock_index(s);
    const int2 point = cos_sin_turn(clock_turn((mirror + CLOCK - k) % CLOCK));
    return unit(Vector{{point.x, point.y, 0}}).v;
}

// What the clock spins' cluster kernels share (clock_bonds, clock_flip), the twin of
// clock.wgsl: Wolff's embedding of the clock model (src/engine/clusters.rs). The kernels take
// the cluster kernels' arguments (cluster.cuh) on the vector engine's spins, two components a
// site: component a of site i of system z at (2 z + a) N + i.

#include "cluster_draws.cuh"
#include "vector.cuh"

// Words of a temperature's acceptance table (fixed::TABLE_LEN): the activation argument holds
// one a temperature.
constexpr unsigned TABLE_WORDS = 4u * TABLE_BYTE;

// The clock spin of site i of system z.
__device__ __forceinline__ Vector load_clock(const int* spins, unsigned z, unsigned i) {
    const unsigned long long first = 2ull * z * lattice_sites() + i;
    return Vector{{spins[first], spins[first + lattice_sites()], 0}};
}

__device__ __forceinline__ void store_clock(int* spins, unsigned z, unsigned i, const Vector& s) {
    const unsigned long long first = 2ull * z * lattice_sites() + i;
    spins[first] = s.c[0];
    spins[first + lattice_sites()] = s.c[1];
}

// A kagome hole holds the zero vector, which joins no bond and never moves.
__device__ __forceinline__ bool is_hole(const Vector& s) {
    return s.c[0] == 0 && s.c[1] == 0;
}

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

// Where the vector engine keeps its spins, the twin of vector_spins.wgsl: component a of site i
// of system b at (b COMPONENTS + a) N + i (engine::vector_gpu), for the vector kernels
// (vector_site.cuh) and the clock's cluster kernels (clock.cuh) alike.

#include "lattice.cuh"
#include "vector.cuh"

// Index of component a of site i of system b.
__device__ __forceinline__ unsigned long long spin_word(unsigned b, unsigned a, unsigned i) {
    return (static_cast<unsigned long long>(b) * COMPONENTS + a) * lattice_sites() + i;
}

// An empty site (the kagome lattice's missing quarter) holds the zero vector, which no update
// moves (over-relaxation keeps it: unit of zero fails), no sum counts (fixed::is_empty) and no
// cluster bond joins.
__device__ __forceinline__ bool is_empty(const Vector& s) {
    return s.c[0] == 0 && s.c[1] == 0 && s.c[2] == 0;
}

__device__ __forceinline__ Vector load_spin(const int* spins, unsigned b, unsigned i) {
    Vector s = {{0, 0, 0}};
#pragma unroll
    for (unsigned a = 0u; a < COMPONENTS; a++) {
        s.c[a] = spins[spin_word(b, a, i)];
    }
    return s;
}

__device__ __forceinline__ void store_spin(int* spins, unsigned b, unsigned i, const Vector& s) {
#pragma unroll
    for (unsigned a = 0u; a < COMPONENTS; a++) {
        spins[spin_word(b, a, i)] = s.c[a];
    }
}

// The spins of sites 4g .. 4g + 3 of system b, each component's four in one 16-byte access (a
// system's sites are a multiple of 4, every size being even): four reads or writes of 4 bytes
// each waited for the last (the clock's cluster kernels).
__device__ __forceinline__ void load_quad(const int* spins, unsigned b, unsigned g, Vector quad[4]) {
#pragma unroll
    for (unsigned k = 0u; k < 4u; k++) {
        quad[k] = Vector{{0, 0, 0}};
    }
#pragma unroll
    for (unsigned a = 0u; a < COMPONENTS; a++) {
        const int4 read = *reinterpret_cast<const int4*>(spins + spin_word(b, a, 4u * g));
        quad[0].c[a] = read.x;
        quad[1].c[a] = read.y;
        quad[2].c[a] = read.z;
        quad[3].c[a] = read.w;
    }
}

__device__ __forceinline__ void store_quad(int* spins, unsigned b, unsigned g, const Vector quad[4]) {
#pragma unroll
    for (unsigned a = 0u; a < COMPONENTS; a++) {
        *reinterpret_cast<int4*>(spins + spin_word(b, a, 4u * g)) =
            make_int4(quad[0].c[a], quad[1].c[a], quad[2].c[a], quad[3].c[a]);
    }
}

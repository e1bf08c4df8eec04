// Periodic L^d lattice geometry, the twin of src/model/mod.rs and shaders/wgsl/lattice.wgsl.
// Natural order index = (z L + y) L + x; colour index ci = row * L/2 + k with row = z L + y and
// x = 2k + ((y + z + colour) mod 2). The triangular lattice (TRIANGULAR 1, 2D) adds the
// diagonal bond (1, 1) as a third direction and colours sites (x + y) mod 3: ci = y * L/3 + k
// with x = 3k + ((colour - y) mod 3). The honeycomb lattice (HONEYCOMB 1, 2D) is the square
// lattice's brick wall: the +y bond of a site of odd x + y (colour 1) is a gap, so colour-0
// sites have their y bond up, colour-1 sites down (model::lattices). L, DIMS, TRIANGULAR and
// HONEYCOMB are set by the host (-DSPINFLIP_L, ...; TRIANGULAR and HONEYCOMB 0 where left out)
// so that every division by L folds into a multiplication.

#ifndef SPINFLIP_TRIANGULAR
#define SPINFLIP_TRIANGULAR 0u
#endif
#ifndef SPINFLIP_HONEYCOMB
#define SPINFLIP_HONEYCOMB 0u
#endif

constexpr unsigned L = SPINFLIP_L;
constexpr unsigned DIMS = SPINFLIP_DIMS;
constexpr unsigned TRIANGULAR = SPINFLIP_TRIANGULAR;
constexpr unsigned HONEYCOMB = SPINFLIP_HONEYCOMB;

__device__ constexpr unsigned lattice_sites() {
    return DIMS == 3u ? L * L * L : L * L;
}

// Coordinate d of site i.
__device__ __forceinline__ unsigned coordinate(unsigned i, unsigned d) {
    return d == 0u ? i % L : d == 1u ? (i / L) % L : i / (L * L);
}

// Bond directions per site (bond site * directions() + d).
__device__ constexpr unsigned directions() {
    return DIMS + TRIANGULAR;
}

__device__ constexpr unsigned coordination() {
    return 2u * directions();
}

// The coordinates of the ci-th site of colour `colour` on a checkerboard of `side` sites a
// side (z 0 in 2D): the lattice's own (colour_site), a tile's or the lattice of tiles'
// (vector_tiles.cu).
__device__ __forceinline__ uint3 colour_coords(unsigned side, unsigned colour, unsigned ci) {
    const unsigned half = side / 2u;
    const unsigned row = ci / half;
    const unsigned y = row % side;
    const unsigned z = row / side;
    return make_uint3(2u * (ci % half) + ((y + z + colour) & 1u), y, z);
}

__device__ __forceinline__ unsigned colour_site(unsigned colour, unsigned ci) {
    if (TRIANGULAR == 1u) {
        // At least 1: the square lattice's L = 2 would make this branch a division by zero.
        constexpr unsigned per_row = L / 3u > 0u ? L / 3u : 1u;
        const unsigned y = ci / per_row;
        return y * L + 3u * (ci % per_row) + (colour + 3u * L - y) % 3u;
    }
    const uint3 c = colour_coords(L, colour, ci);
    return (c.z * L + c.y) * L + c.x;
}

// The neighbours of a site, a pair per direction: -x, +x, -y, +y, then -z, +z or (triangular)
// -(1, 1), +(1, 1) (entries 4, 5 unused on the square lattice).
struct Neighbours {
    unsigned site[6];
};

__device__ __forceinline__ Neighbours neighbours(unsigned site) {
    const unsigned x = site % L;
    const unsigned y = (site / L) % L;
    const unsigned z = site / (L * L);
    const unsigned row = site - x;
    const unsigned plane = site - y * L - x;
    const unsigned x_minus = x == 0u ? L - 1u : x - 1u;
    const unsigned x_plus = x == L - 1u ? 0u : x + 1u;
    const unsigned y_minus = y == 0u ? L - 1u : y - 1u;
    const unsigned y_plus = y == L - 1u ? 0u : y + 1u;
    const unsigned z_minus = z == 0u ? L - 1u : z - 1u;
    const unsigned z_plus = z == L - 1u ? 0u : z + 1u;
    const unsigned line = y * L + x;
    const unsigned layer = L * L;
    return Neighbours{{
        row + x_minus,
        row + x_plus,
        plane + y_minus * L + x,
        plane + y_plus * L + x,
        TRIANGULAR == 1u ? plane + y_minus * L + x_minus : z_minus * layer + line,
        TRIANGULAR == 1u ? plane + y_plus * L + x_plus : z_plus * layer + line,
    }};
}

// Periodic L^d lattice geometry, the twin of src/model/mod.rs.
// Natural order index = (z L + y) L + x; colour index ci = row * L/2 + k with row = z L + y and
// x = 2k + ((y + z + colour) mod 2). The triangular lattice (TRIANGULAR 1, 2D) adds the
// diagonal bond (1, 1) as a third direction and colours sites (x + y) mod 3: ci = y * L/3 + k
// with x = 3k + ((colour - y) mod 3). The honeycomb lattice (HONEYCOMB 1, 2D) is the square
// lattice's brick wall: the +y bond of a site of odd x + y (colour 1) is a gap, so colour-0
// sites have their y bond up, colour-1 sites down (model::lattices).

override L: u32 = 16u;
override DIMS: u32 = 2u;
override TRIANGULAR: u32 = 0u;
override HONEYCOMB: u32 = 0u;

fn lattice_sites() -> u32 {
    var n = L * L;
    if DIMS == 3u {
        n *= L;
    }
    return n;
}

// Coordinate d of site i.
fn coordinate(i: u32, d: u32) -> u32 {
    var step = 1u;
    for (var e = 0u; e < d; e++) {
        step *= L;
    }
    return (i / step) % L;
}

// Bond directions per site (bond site * directions() + d).
fn directions() -> u32 {
    return DIMS + TRIANGULAR;
}

fn coordination() -> u32 {
    return 2u * directions();
}

// The coordinates of the ci-th site of colour `colour` on a checkerboard of `side` sites a
// side (z 0 in 2D): the lattice's own (colour_site), a tile's or the lattice of tiles'
// (vector_tiles.wgsl).
fn colour_coords(side: u32, colour: u32, ci: u32) -> vec3<u32> {
    let half = side / 2u;
    let row = ci / half;
    let y = row % side;
    let z = row / side;
    return vec3<u32>(2u * (ci % half) + ((y + z + colour) & 1u), y, z);
}

fn colour_site(colour: u32, ci: u32) -> u32 {
    if TRIANGULAR == 1u {
        // At least 1: the square lattice's L = 2 would make this branch a division by zero.
        let per_row = max(L / 3u, 1u);
        let y = ci / per_row;
        return y * L + 3u * (ci % per_row) + (colour + 3u * L - y) % 3u;
    }
    let c = colour_coords(L, colour, ci);
    return (c.z * L + c.y) * L + c.x;
}

// The neighbours of a site, a pair per direction: -x, +x, -y, +y, then -z, +z or (triangular)
// -(1, 1), +(1, 1) (entries 4, 5 unused on the square lattice).
fn neighbours(site: u32) -> array<u32, 6> {
    let x = site % L;
    let y = (site / L) % L;
    let z = site / (L * L);
    let row = site - x;
    let plane = site - y * L - x;
    let x_minus = select(x - 1u, L - 1u, x == 0u);
    let x_plus = select(x + 1u, 0u, x == L - 1u);
    let y_minus = select(y - 1u, L - 1u, y == 0u);
    let y_plus = select(y + 1u, 0u, y == L - 1u);
    let z_minus = select(z - 1u, L - 1u, z == 0u);
    let z_plus = select(z + 1u, 0u, z == L - 1u);
    let line = y * L + x;
    let layer = L * L;
    return array<u32, 6>(
        row + x_minus,
        row + x_plus,
        plane + y_minus * L + x,
        plane + y_plus * L + x,
        select(z_minus * layer + line, plane + y_minus * L + x_minus, TRIANGULAR == 1u),
        select(z_plus * layer + line, plane + y_plus * L + x_plus, TRIANGULAR == 1u),
    );
}

// Periodic L^d lattice geometry, the twin of src/model/mod.rs.
// Natural order index = (z L + y) L + x; colour index ci = row * L/2 + k with row = z L + y and
// x = 2k + ((y + z + colour) mod 2).

override L: u32 = 16u;
override DIMS: u32 = 2u;

fn lattice_sites() -> u32 {
    var n = L * L;
    if DIMS == 3u {
        n *= L;
    }
    return n;
}

fn coordination() -> u32 {
    return 2u * DIMS;
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
    let c = colour_coords(L, colour, ci);
    return (c.z * L + c.y) * L + c.x;
}

// The 2d neighbours of a site: -x, +x, -y, +y, -z, +z (entries 4, 5 unused in 2D).
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
        z_minus * layer + line,
        z_plus * layer + line,
    );
}

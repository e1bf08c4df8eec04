// The bit planes (discrete_planes.wgsl) of every lattice of discrete states back into their
// states, a word a site, the inverse of discrete_pack with its threads: thread t < 2H of system
// z writes the states of the 32 colour sites of word cw = t mod H of colour c = t / H. CPU twin:
// src/engine/cpu/discrete_unpack.rs.

#import discrete_planes

@compute @workgroup_size(WG_SIZE)
fn main(thread: Thread) {
    let at = plane_thread(thread);
    if !at.live {
        return;
    }
    let z = at.z;
    let c = at.c;
    let cw = at.cw;
    // The P words read once, then each site's state gathered from its bit of every plane.
    var planes: Planes;
    for (var p = 0u; p < PLANES; p++) {
        planes[p] = load_plane(z, p, c, cw);
    }
    for (var bit = 0u; bit < 32u; bit++) {
        var state = 0u;
        for (var p = 0u; p < PLANES; p++) {
            state |= ((planes[p] >> bit) & 1u) << p;
        }
        spins[z * lattice_sites() + colour_site(c, 32u * cw + bit)] = bitcast<i32>(state);
    }
}

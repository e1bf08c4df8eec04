// The states of every lattice of discrete states, a word a site, into their bit planes
// (discrete_planes.wgsl): thread t < 2H of system z builds the P plane words of word cw = t mod H
// of colour c = t / H from the states of its 32 colour sites (bit p of the state of colour site
// 32 cw + bit is bit `bit` of plane p). CPU twin: src/engine/cpu/discrete_pack.rs.

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
    // Each state read once, its bits spread over the planes; every bit of every word is set
    // here, so the words are written whole (the twin ORs into zeros).
    var planes: Planes;
    for (var bit = 0u; bit < 32u; bit++) {
        let state = load_state(z, colour_site(c, 32u * cw + bit));
        for (var p = 0u; p < PLANES; p++) {
            planes[p] |= ((state >> p) & 1u) << bit;
        }
    }
    for (var p = 0u; p < PLANES; p++) {
        store_plane(z, p, c, cw, planes[p]);
    }
}

// Bit planes of discrete states (src/engine/planes.rs, PlaneLayout), shared by discrete_pack,
// discrete_unpack and discrete_planes_metropolis: P = PLANES bits a site, 32 sites of one
// colour a word; bit `bit` of word cw of plane p of colour c is bit p of the state of colour
// site 32 cw + bit (colour_site). The plane words follow every system's states in the spins
// buffer, as i32 bits: word (b, p, c, cw) at PLANES_OFFSET + ((b P + p) 2 + c) H + cw, H the
// words of one plane of one colour (plane_words()).

#import vector_site

// Planes a site: ceil(log2 q), at least one (engine::planes::planes_of).
override PLANES: u32 = 1u;
// The first plane word in spins, after every system's states (PlaneLayout::offset).
override PLANES_OFFSET: u32 = 0u;
// The per-thread arrays' length: engine::planes::MAX_PLANES (q <= 256).
const MAX_PLANES: u32 = 8u;

// The P plane words of one word position.
alias Planes = array<u32, MAX_PLANES>;

// Words of one plane of one colour, N / 64 (PlaneLayout::words_per_colour).
fn plane_words() -> u32 {
    return lattice_sites() / 64u;
}

// The index in spins of word cw of plane p of colour c of system b (PlaneLayout::word).
fn plane_word(b: u32, p: u32, c: u32, cw: u32) -> u32 {
    return PLANES_OFFSET + ((b * PLANES + p) * 2u + c) * plane_words() + cw;
}

fn load_plane(b: u32, p: u32, c: u32, cw: u32) -> u32 {
    return bitcast<u32>(spins[plane_word(b, p, c, cw)]);
}

fn store_plane(b: u32, p: u32, c: u32, cw: u32, word: u32) {
    spins[plane_word(b, p, c, cw)] = bitcast<i32>(word);
}

// The word of a packing thread (discrete_pack, discrete_unpack): thread t < 2H of system z
// takes word cw = t mod H of colour c = t / H; `live` false past them.
struct PlaneThread {
    z: u32,
    c: u32,
    cw: u32,
    live: bool,
}

fn plane_thread(thread: Thread) -> PlaneThread {
    let t = thread_in_system(thread);
    let h = plane_words();
    return PlaneThread(layer(params, thread), t / h, t % h, t < 2u * h);
}

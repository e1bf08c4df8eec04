// Bit planes of discrete states (engine::planes, the twin of discrete_planes.wgsl): P = PLANES
// bits a site, 32 sites of one colour a word. Bit `bit` of word cw of plane p of colour c holds
// bit p of the state of colour site 32 cw + bit (colour_site); plane p of colour c of system b
// is the run of words_per_colour() words from plane_word(b, p, c, 0) (PlaneLayout::word).

#include "vector_site.cuh"

// Most planes a site (engine::planes::MAX_PLANES, q <= 256): the size of the register arrays
// of one word position's planes.
constexpr unsigned MAX_PLANES = 8u;
// Planes a site (PlaneLayout::planes; 0 where the sweeps hold no planes). The host refuses
// more than MAX_PLANES (check_planes); the bound keeps a build with a larger PLANES of another
// engine (the NVRTC test's slab of 20) inside the arrays.
constexpr unsigned PLANES = SPINFLIP_PLANES < MAX_PLANES ? SPINFLIP_PLANES : MAX_PLANES;
// Sites of one colour a plane word (engine::planes::PLANE_BITS).
constexpr unsigned PLANE_BITS = 32u;

// Words of one plane of one colour (PlaneLayout::words_per_colour): N / 64.
__device__ constexpr unsigned words_per_colour() {
    return lattice_sites() / (2u * PLANE_BITS);
}

// PlaneLayout::word: word cw of plane p of colour c of system b, in 64 bits (the planes of
// every system may pass 2^32 words).
__device__ __forceinline__ unsigned long long plane_word(unsigned b, unsigned p, unsigned c,
                                                         unsigned cw) {
    const unsigned long long plane = (static_cast<unsigned long long>(b) * PLANES + p) * 2ull + c;
    return plane * words_per_colour() + cw;
}

// The word of a packing thread (discrete_pack, discrete_unpack): thread t < 2H of system z takes
// word cw = t mod H of colour c = t / H; `live` false past them.
struct PlaneThread {
    unsigned z;
    unsigned c;
    unsigned cw;
    bool live;
};

__device__ __forceinline__ PlaneThread plane_thread(const DispatchParams& params) {
    const unsigned t = thread_in_system();
    const unsigned h = words_per_colour();
    return PlaneThread{layer(params), t / h, t % h, t < 2u * h};
}

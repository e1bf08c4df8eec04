// The fixed-point arithmetic of vector spins, function by function the twin of
// src/model/vector/fixed.rs and shaders/wgsl/vector.wgsl: a spin component is an int in units
// of 2^-28; CUDA has 64-bit integers natively, so each function is the Rust one in C++ (signed
// >> is the arithmetic shift on NVIDIA's compilers, / truncates). Vectors are int3, components
// past COMPONENTS zero.

constexpr unsigned COMPONENTS = SPINFLIP_COMPONENTS;
// A clock model's states q (fixed::Directions::clock; 0 for every angle), and T and R of
// 2^32 = T q + R (fixed::clock_split).
constexpr unsigned CLOCK = SPINFLIP_CLOCK;
constexpr unsigned CLOCK_TURN = SPINFLIP_CLOCK_TURN;
constexpr unsigned CLOCK_REMAINDER = SPINFLIP_CLOCK_REMAINDER;
constexpr unsigned FRACTION_BITS = 28u;
constexpr int ONE = 1 << FRACTION_BITS;
constexpr unsigned ENERGY_SHIFT = 32u;
constexpr unsigned TABLE_BYTE = 256u;
constexpr unsigned MEASURE_SHIFT = 24u;
// Bits by which the local field is coarser than a spin unit (CouplingScale::field_shift): 0,
// or 3 for the Gaussian glass.
constexpr unsigned FIELD_SHIFT = SPINFLIP_FIELD_SHIFT;

struct Vector {
    int c[3];
};

// A unit vector, or none (`ok` false) for the zero vector: fixed::unit's Option.
struct Unit {
    Vector v;
    bool ok;
};

// a . b of the first COMPONENTS components, exactly.
__device__ __forceinline__ long long dot(const Vector& a, const Vector& b) {
    long long sum = 0;
#pragma unroll
    for (unsigned c = 0u; c < COMPONENTS; c++) {
        sum += static_cast<long long>(a.c[c]) * b.c[c];
    }
    return sum;
}

// fixed::SEED_HIGH and fixed::SEED_LOW: inverse_sqrt's seed polynomials, {c0, c1, c2}.
constexpr unsigned SEED_HIGH[3] = {0x8ef8f371u, 0x843cba9bu, 0x35780865u};
constexpr unsigned SEED_LOW[3] = {0xca318fadu, 0xbb02fd07u, 0x4b9dcd36u};

// fixed::newton_step: y (3 - t y^2 2^-92) / 2 with y^2 >> 31, its product with t and the
// result floored to words.
__device__ __forceinline__ unsigned newton_step(unsigned y, unsigned t) {
    const unsigned square = static_cast<unsigned>((static_cast<unsigned long long>(y) * y) >> 31);
    const unsigned correction = (3u << 29u) - __umulhi(square, t);
    return static_cast<unsigned>((static_cast<unsigned long long>(y) * correction) >> 30);
}

// fixed::inverse_sqrt: 2^46 / sqrt(t) for t in [2^30, 2^32), within 2^-29: the seed
// polynomial of t's octave, then two Newton steps.
__device__ __forceinline__ unsigned inverse_sqrt(unsigned t) {
    const bool low = t < 0x80000000u;
    const unsigned z = low ? t << 1u : t;
    const unsigned c0 = low ? SEED_LOW[0] : SEED_HIGH[0];
    const unsigned c1 = low ? SEED_LOW[1] : SEED_HIGH[1];
    const unsigned c2 = low ? SEED_LOW[2] : SEED_HIGH[2];
    const unsigned y = c0 - __umulhi(z, c1 - __umulhi(z, c2));
    return newton_step(newton_step(y, t), t);
}

// fixed::mulhi_signed: the high word of a * b for a signed a, floor(a b / 2^32).
__device__ __forceinline__ int mulhi_signed(int a, unsigned b) {
    return static_cast<int>(__umulhi(static_cast<unsigned>(a), b) - (a < 0 ? b : 0u));
}

// fixed::unit: v scaled by 2^k to put v . v into [2^60, 2^62) (v . v below 2^62), its top 32
// bits t give y = inverse_sqrt(t), and each component is v_a 2^k y / 2^33 rounded half up.
__device__ __forceinline__ Unit unit(const Vector& v) {
    const unsigned long long square = static_cast<unsigned long long>(dot(v, v));
    Unit u = {{{0, 0, 0}}, false};
    if (square == 0ull) {
        return u;
    }
    const unsigned zeros = static_cast<unsigned>(__clzll(static_cast<long long>(square)));
    const unsigned k = (zeros < 2u ? 0u : zeros - 2u) / 2u;
    const unsigned y = inverse_sqrt(static_cast<unsigned>((square << (2u * k)) >> 30));
#pragma unroll
    for (unsigned c = 0u; c < COMPONENTS; c++) {
        // The shift of the bits: a negative int's << is undefined before C++20.
        const int scaled = static_cast<int>(static_cast<unsigned>(v.c[c]) << k);
        u.v.c[c] = (mulhi_signed(scaled, y) + 1) >> 1;
    }
    u.ok = true;
    return u;
}

// fixed::polynomial: sum_k c_k y^k in units of 2^-30 for y in units of 2^-32 (Horner's rule,
// each product floored to its high word). Each accumulator multiplied has its coefficient's
// sign (fixed::polynomial says why), so mulhi_signed's correction folds into a constant.
__device__ __forceinline__ int polynomial(const int (&c)[8], unsigned y) {
    int acc = c[7];
#pragma unroll
    for (int k = 6; k >= 0; k--) {
        const unsigned correction = c[k + 1] < 0 ? y : 0u;
        acc = c[k] + static_cast<int>(__umulhi(static_cast<unsigned>(acc), y) - correction);
    }
    return acc;
}

// fixed::quadrant_turn: the point {c, s} of a first-quadrant angle turned by `quadrant` quarter
// turns: the components swapped in odd quadrants, the first negated in quadrants 1 and 2, the
// second in 2 and 3. Selects, not branches: the quadrant is random, so a warp's lanes would
// take every branch in turn.
__device__ __forceinline__ int2 quadrant_turn(int c, int s, unsigned quadrant) {
    const bool odd = (quadrant & 1u) != 0u;
    const int x = odd ? s : c;
    const int y = odd ? c : s;
    return make_int2(((quadrant + 1u) & 2u) != 0u ? -x : x, (quadrant & 2u) != 0u ? -y : y);
}

// fixed::cos_sin_turn: {cos, sin} of 2 pi w / 2^32 in spin units, the quadrant from the top two
// bits, the quarter turn's fraction x / 2^30 through the two polynomials in its square.
__device__ __forceinline__ int2 cos_sin_turn(unsigned w) {
    // fixed::SINE_COEFFICIENTS and fixed::COSINE_COEFFICIENTS, units of 2^-30, lowest first.
    constexpr int SINE_COEFFICIENTS[8] = {1686629713, -693598668, 85569306, -5026995,
                                          172272,     -3864,      61,       -1};
    constexpr int COSINE_COEFFICIENTS[8] = {1073741824, -1324675879, 272375560, -22401992,
                                            987048,     -27060,      506,       -7};
    const unsigned x = w & 0x3fffffffu;
    const unsigned y = static_cast<unsigned>((static_cast<unsigned long long>(x) * x) >> 28);
    const int sine = mulhi_signed(polynomial(SINE_COEFFICIENTS, y), x);
    const int cosine = polynomial(COSINE_COEFFICIENTS, y) >> 2;
    return quadrant_turn(cosine, sine, w >> 30);
}

// fixed::sqrt_square: sqrt(t) in spin units for t < 2^62 in units of 2^-56: t scaled by 4^k into
// [2^60, 2^62) as unit scales, its top word T, and T inverse_sqrt(T) / 2^(31 + k).
__device__ __forceinline__ int sqrt_square(unsigned long long t) {
    if (t == 0ull) {
        return 0;
    }
    const unsigned zeros = static_cast<unsigned>(__clzll(static_cast<long long>(t)));
    const unsigned k = (zeros < 2u ? 0u : zeros - 2u) / 2u;
    const unsigned top = static_cast<unsigned>((t << (2u * k)) >> 30);
    return static_cast<int>((static_cast<unsigned long long>(top) * inverse_sqrt(top)) >> (31u + k));
}

// fixed::clock_turn: the turn of clock state k, floor(k 2^32 / q) = k T + (k R) / q.
__device__ __forceinline__ unsigned clock_turn(unsigned k) {
    return k * CLOCK_TURN + (k * CLOCK_REMAINDER) / (CLOCK == 0u ? 1u : CLOCK);
}

// vector_metropolis::clock_spin: the unit vector of clock state k's turn.
__device__ __forceinline__ Vector clock_spin(unsigned k) {
    const int2 circle = cos_sin_turn(clock_turn(k));
    return unit(Vector{{circle.x, circle.y, 0}}).v;
}

// fixed::angle_below: whether the angle of plane vector a in [0, 2 pi) is below b's: a in the
// upper half plane and b in the lower, or both in one half and a x b positive.
__device__ __forceinline__ bool angle_below(const Vector& a, const Vector& b) {
    const bool a_lower = a.c[1] < 0 || (a.c[1] == 0 && a.c[0] < 0);
    const bool b_lower = b.c[1] < 0 || (b.c[1] == 0 && b.c[0] < 0);
    if (a_lower != b_lower) {
        return b_lower;
    }
    return static_cast<long long>(a.c[0]) * b.c[1] - static_cast<long long>(a.c[1]) * b.c[0] > 0;
}

// fixed::threshold: the product of the four bytes' table entries of k, byte 0 first, each
// product's high word; `table` the temperature's table.
__device__ __forceinline__ unsigned threshold(unsigned k, const unsigned* table) {
    unsigned t = table[k & 0xffu];
#pragma unroll
    for (unsigned byte = 1u; byte < 4u; byte++) {
        t = __umulhi(t, table[byte * TABLE_BYTE + ((k >> (8u * byte)) & 0xffu)]);
    }
    return t;
}

// fixed::heat_bath_target: floor(u W / 2^32) for the total weight W < 2^48 of a heat bath's
// states, W_hi u + mulhi(W_lo, u).
__device__ __forceinline__ unsigned long long heat_bath_target(unsigned long long total,
                                                               unsigned u) {
    return (total >> 32) * u + __umulhi(static_cast<unsigned>(total), u);
}

// fixed::accepts: downhill always, else the random word u below the threshold of
// delta >> (ENERGY_SHIFT - FIELD_SHIFT) (CouplingScale::energy_shift).
__device__ __forceinline__ bool accepts(long long delta, unsigned u, const unsigned* table) {
    const unsigned k = static_cast<unsigned>(delta >> (ENERGY_SHIFT - FIELD_SHIFT));
    return delta <= 0 || u < threshold(k, table);
}

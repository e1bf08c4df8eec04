//! PNG snapshots of a final lattice: the whole lattice in 2D, the mid-plane `z = L/2` in 3D;
//! Ising spins' +1 and -1 in two colours, vector spins' directions on a colour wheel, discrete
//! states in hues a golden angle apart; the colours named in a key below the lattice. Each
//! lattice in its own geometry ([`Drawing`]): the triangular and kagome lattices sheared, row
//! `y` half a site left of row `y - 1`, so that the diagonal bond `(1, 1)` is as long as the
//! others; the honeycomb's sites as triangles, each sharing an edge with its three neighbours.

use super::glyphs::{GLYPH_HEIGHT, GLYPH_WIDTH, ink};
use crate::error::{Error, Result};
use crate::model::lattices::is_kagome_hole;
use crate::model::{Lattice, Shape};

/// Lattices wider than this many sites are drawn at every k-th site along each axis (the site
/// itself, not a majority of its block, so that the pixels are spins of the lattice).
pub const MAX_SIDE: u32 = 1024;
/// Small lattices are magnified by a whole factor to at least this many pixels a side.
const MIN_SIDE: u32 = 512;
/// Palette index 0 draws -1 (light amber), 1 draws +1 (dark blue); the key's background is 2
/// (white), its text 3 (black).
const PALETTE: [u8; 12] = [
    0xf5, 0xc4, 0x50, 0x1f, 0x3b, 0x8c, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00,
];
const DOWN: u8 = 0;
const UP: u8 = 1;
const BACKGROUND: u8 = 2;
const TEXT: u8 = 3;
/// The key's entries: a swatch of the colour, then its words.
const KEY: [(u8, &str); 2] = [(UP, "UP +1"), (DOWN, "DOWN -1")];
/// The vector key's background: grey, so that the white of `z = +1` shows.
const VECTOR_BACKGROUND: [u8; 3] = [0xc0; 3];
const VECTOR_TEXT: [u8; 3] = [0; 3];
/// The in-plane angles, in degrees, whose colours the vector key names.
const KEY_ANGLES: [(f64, &str); 4] = [(0.0, "0"), (90.0, "90"), (180.0, "180"), (270.0, "270")];
/// Image pixels per font pixel of the key, and the key's margins.
const KEY_SCALE: u32 = 2;
const KEY_MARGIN: u32 = 5;
/// Rows of the key below the lattice.
pub const KEY_HEIGHT: u32 = GLYPH_HEIGHT * KEY_SCALE + 2 * KEY_MARGIN;

/// The PNG of `lattice` whose site `i` (x fastest, as in `final_state.npy`) is up iff `up(i)`:
/// only the drawn sites are read, so a packed lattice of any size is drawn without expanding
/// it; a kagome lattice's holes in the background's colour.
pub fn snapshot_png(up: impl Fn(u64) -> bool, lattice: Lattice) -> Result<Vec<u8>> {
    let plane = plane_start(lattice);
    let frame = (Drawing::of(&lattice), BACKGROUND);
    let colour = |site| match is_kagome_hole(&lattice, plane + site) {
        true => BACKGROUND,
        false => u8::from(up(plane + site)),
    };
    let ((width, side), mut pixels) = pixels(colour, lattice, frame);
    pixels.extend(colour_key(width, &KEY, BACKGROUND, TEXT));
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, width, side + KEY_HEIGHT);
    encoder.set_color(png::ColorType::Indexed);
    encoder.set_palette(PALETTE.as_slice());
    encode(encoder, &pixels)?;
    Ok(png)
}

/// The PNG of `lattice`'s vector spins of `components` (2 or 3) whose site `i` is
/// `spin(i)` (the components beyond `components` 0): the in-plane angle `atan2(s_y, s_x)` as the
/// hue, `s_z` as the lightness (white at +1, black at -1); the key names the hues of four
/// angles in degrees and, for three components, the lightness of `z = +1` and `-1`. Only the
/// drawn sites are read.
pub fn vector_snapshot_png(
    spin: impl Fn(u64) -> [f32; 3],
    components: u32,
    lattice: Lattice,
) -> Result<Vec<u8>> {
    let plane = plane_start(lattice);
    let frame = (Drawing::of(&lattice), VECTOR_BACKGROUND);
    let (shape, mut pixels) = pixels(|site| spin_colour(spin(plane + site)), lattice, frame);
    let mut key: Vec<([u8; 3], &str)> = KEY_ANGLES
        .iter()
        .map(|&(degrees, words)| (hue_colour(degrees, 0.5), words))
        .collect();
    if components == 3 {
        key.extend([([0xff; 3], "Z+1"), ([0; 3], "Z-1")]);
    }
    pixels.extend(colour_key(shape.0, &key, VECTOR_BACKGROUND, VECTOR_TEXT));
    rgb_png(shape, &pixels)
}

/// The hues of successive discrete states, in degrees: the golden angle, so that any number of
/// states (and a negative value) get hues far apart without knowing how many there are.
const STATE_HUE_STEP: f64 = 137.507_764;

/// States named in the key at most (the empty sites first, where there are any).
const KEY_STATES: usize = 8;

/// The colour of an empty site of a diluted lattice.
const EMPTY_SITE: [u8; 3] = [0; 3];

/// The PNG of `lattice`'s discrete states whose site `i` has the value `value(i)`
/// (a Potts state `0 .. q`, a Blume-Capel spin `-1, 0, +1`): value `v` in the hue
/// `v STATE_HUE_STEP`, an empty site (NaN) in black; the key names the first [`KEY_STATES`]
/// values drawn, and the empty sites where there are any. Only the drawn sites are read.
pub fn states_snapshot_png(value: impl Fn(u64) -> f32, lattice: Lattice) -> Result<Vec<u8>> {
    let plane = plane_start(lattice);
    let drawn = std::cell::RefCell::new(std::collections::BTreeSet::new());
    let (shape, mut pixels) = pixels(
        |site| {
            let v = value(plane + site);
            let state = (!v.is_nan()).then_some(v as i32);
            drawn.borrow_mut().insert(state);
            state.map_or(EMPTY_SITE, state_colour)
        },
        lattice,
        (Drawing::of(&lattice), VECTOR_BACKGROUND),
    );
    let names: Vec<([u8; 3], String)> = (drawn.into_inner().into_iter().take(KEY_STATES))
        .map(|state| match state {
            Some(v) => (state_colour(v), v.to_string()),
            None => (EMPTY_SITE, "EMPTY".to_string()),
        })
        .collect();
    let key: Vec<([u8; 3], &str)> = (names.iter())
        .map(|(colour, name)| (*colour, name.as_str()))
        .collect();
    pixels.extend(colour_key(shape.0, &key, VECTOR_BACKGROUND, VECTOR_TEXT));
    rgb_png(shape, &pixels)
}

/// The colour of the discrete state of value `v`.
fn state_colour(v: i32) -> [u8; 3] {
    hue_colour((f64::from(v) * STATE_HUE_STEP).rem_euclid(360.0), 0.5)
}

/// The RGB PNG of `pixels`, `width` wide, the lattice's `side` rows and its key below.
fn rgb_png((width, side): (u32, u32), pixels: &[[u8; 3]]) -> Result<Vec<u8>> {
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, width, side + KEY_HEIGHT);
    encoder.set_color(png::ColorType::Rgb);
    encode(encoder, pixels.as_flattened())?;
    Ok(png)
}

/// Write the image `data` (8 bits a channel) with the header `encoder` describes.
fn encode<W: std::io::Write>(mut encoder: png::Encoder<'_, W>, data: &[u8]) -> Result<()> {
    encoder.set_depth(png::BitDepth::Eight);
    let encoded = encoder
        .write_header()
        .and_then(|mut writer| writer.write_image_data(data));
    encoded.map_err(|e| Error::State(format!("encoding a lattice snapshot: {e}")))
}

/// The colour of a vector spin: its in-plane angle's hue at the lightness of its `z`; an empty
/// site's zero vector (the kagome lattice's missing quarter) in the background's grey.
fn spin_colour([x, y, z]: [f32; 3]) -> [u8; 3] {
    if [x, y, z] == [0.0; 3] {
        return VECTOR_BACKGROUND;
    }
    let degrees = f64::from(y)
        .atan2(f64::from(x))
        .to_degrees()
        .rem_euclid(360.0);
    hue_colour(degrees, (1.0 + f64::from(z).clamp(-1.0, 1.0)) / 2.0)
}

/// The fully saturated colour of hue `degrees` (red 0, green 120, blue 240) at `lightness`
/// (0 black, 1/2 the pure hue, 1 white): HSL with saturation 1.
fn hue_colour(degrees: f64, lightness: f64) -> [u8; 3] {
    let chroma = lightness.min(1.0 - lightness);
    let channel = |n: f64| {
        let k = (n + degrees / 30.0).rem_euclid(12.0);
        let value = lightness - chroma * (k - 3.0).min(9.0 - k).clamp(-1.0, 1.0);
        (255.0 * value).round() as u8
    };
    [channel(0.0), channel(8.0), channel(4.0)]
}

/// The first site of the `size x size` plane that is drawn: the lattice in 2D, the plane
/// `z = size/2` in 3D.
fn plane_start(lattice: Lattice) -> u64 {
    let size = u64::from(lattice.size);
    let z = if lattice.dims == 3 { size / 2 } else { 0 };
    z * size * size
}

/// How the sites of a plane lie in the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Drawing {
    /// Square cells (the square and cubic lattices).
    Square,
    /// Square cells, each row half a site left of the one above it (the triangular and kagome
    /// lattices).
    Sheared,
    /// Triangles alternating up and down along each row, a site of even `x + y` pointing up:
    /// the honeycomb's sites as the cells of its dual triangular lattice, each sharing an edge
    /// with its three neighbours (the brick wall's `+y` bond from an even site is the up
    /// triangle's base, shared with the down triangle below it).
    Triangles,
}

impl Drawing {
    fn of(lattice: &Lattice) -> Self {
        match lattice.shape {
            Shape::Hypercubic => Drawing::Square,
            Shape::Triangular | Shape::Kagome => Drawing::Sheared,
            Shape::Honeycomb => Drawing::Triangles,
        }
    }
}

/// The image's width and height and its pixels, row by row: every `stride`-th site of the
/// plane whose site `(x, y)` is drawn as `pixel(y size + x)`, each as a `scale x scale` block,
/// laid out as `drawing` says ([`triangle_pixels`] for the triangles), on `background`; sheared,
/// the image is half as wide again.
fn pixels<P: Copy>(
    pixel: impl Fn(u64) -> P,
    lattice: Lattice,
    (drawing, background): (Drawing, P),
) -> ((u32, u32), Vec<P>) {
    let size = lattice.size;
    let stride = size.div_ceil(MAX_SIDE);
    let sampled = size.div_ceil(stride);
    let scale = (MIN_SIDE / sampled).max(1);
    if drawing == Drawing::Triangles {
        let site = |(i, j): (u32, u32)| {
            pixel(u64::from(j * stride) * u64::from(size) + u64::from(i * stride))
        };
        return triangle_pixels(site, (sampled, scale), background);
    }
    let sheared = drawing == Drawing::Sheared;
    let side = sampled * scale;
    let width = if sheared { side + side / 2 } else { side };
    let mut pixels = Vec::with_capacity(width as usize * side as usize);
    for row in 0..side {
        let y = u64::from(row / scale * stride);
        let shift = if sheared { (side - row) / 2 } else { 0 };
        pixels.extend((0..width).map(|column| match column.checked_sub(shift) {
            Some(c) if c < side => pixel(y * u64::from(size) + u64::from(c / scale * stride)),
            _ => background,
        }));
    }
    ((width, side), pixels)
}

/// The image of `sampled` rows of `sampled` triangles ([`Drawing::Triangles`]), the drawn site
/// `(i, j)` (`j` the row from the top) as `site((i, j))`: each triangle `2 scale` pixels at its
/// base and `sqrt 3 scale` high, triangle `i` of a row spanning `i scale .. (i + 2) scale`, the
/// up ones where `i + j` is even; the image `(sampled + 1) scale` wide, with `background` in
/// the half triangles at either end of each row.
fn triangle_pixels<P: Copy>(
    site: impl Fn((u32, u32)) -> P,
    (sampled, scale): (u32, u32),
    background: P,
) -> ((u32, u32), Vec<P>) {
    let height = ((3f64.sqrt() * f64::from(scale)).round() as u32).max(1);
    let (width, rows) = ((sampled + 1) * scale, sampled * height);
    let mut pixels = Vec::with_capacity(width as usize * rows as usize);
    for row in 0..rows {
        let j = row / height;
        // Height within the row, 0 at its bottom edge and 1 at its top.
        let up_by = 1.0 - (f64::from(row % height) + 0.5) / f64::from(height);
        pixels.extend((0..width).map(|column| {
            // Between the centres of triangles k - 1 and k (at k and k + 1 base halves).
            let u = (f64::from(column) + 0.5) / f64::from(scale);
            let (k, t) = (u.floor() as u32, u.fract());
            let up = (k + j).is_multiple_of(2);
            // Triangle k's left edge rises from its base corner to its apex, or falls.
            let in_k = if up { t > up_by } else { t > 1.0 - up_by };
            match (in_k, k) {
                (true, k) if k < sampled => site((k, j)),
                (false, k) if k >= 1 && k <= sampled => site((k - 1, j)),
                _ => background,
            }
        }));
    }
    ((width, rows), pixels)
}

/// The key's rows, `width` pixels wide on `background`: for each entry a swatch of its colour
/// and its words in `text`, cut at the right edge of a narrow image.
fn colour_key<P: Copy>(width: u32, key: &[(P, &str)], background: P, text: P) -> Vec<P> {
    let mut band = vec![background; (width * KEY_HEIGHT) as usize];
    let height = GLYPH_HEIGHT * KEY_SCALE;
    let mut x = KEY_MARGIN;
    for &(colour, words) in key {
        paint(&mut band, width, (x, height), colour, |_, _| true);
        x += height + KEY_MARGIN;
        for c in words.chars() {
            let glyph = |dx: u32, dy: u32| ink(c, dx / KEY_SCALE, dy / KEY_SCALE);
            paint(&mut band, width, (x, GLYPH_WIDTH * KEY_SCALE), text, glyph);
            x += (GLYPH_WIDTH + 1) * KEY_SCALE;
        }
        x += 3 * KEY_MARGIN;
    }
    band
}

/// Sets to `colour` the pixels `(dx, dy)` of the key's box at column `x`, `box_width` wide and
/// a glyph high, where `inked(dx, dy)`.
fn paint<P: Copy>(
    band: &mut [P],
    width: u32,
    (x, box_width): (u32, u32),
    colour: P,
    inked: impl Fn(u32, u32) -> bool,
) {
    for dy in 0..GLYPH_HEIGHT * KEY_SCALE {
        for dx in (0..box_width).filter(|&dx| x + dx < width && inked(dx, dy)) {
            band[((KEY_MARGIN + dy) * width + x + dx) as usize] = colour;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_lattices_are_magnified() {
        let lattice: Vec<i8> = (0..16).map(|i| if i == 1 { 1 } else { -1 }).collect();
        let square = (Drawing::Square, BACKGROUND);
        let ((width, side), pixels) = pixels(
            |i| u8::from(lattice[i as usize] > 0),
            Lattice::new(2, 4),
            square,
        );
        assert_eq!((width, side), (512, 512));
        let up: Vec<usize> = (0..pixels.len()).filter(|&i| pixels[i] == 1).collect();
        assert_eq!(up.len(), 128 * 128);
        assert_eq!(up[0], 128, "site (x 1, y 0) starts at column 128 of row 0");
    }

    #[test]
    fn large_lattices_show_every_kth_site() {
        let size = 2050u32;
        let lattice: Vec<i8> = (0..size * size)
            .map(|i| if (i % size).is_multiple_of(3) { 1 } else { -1 })
            .collect();
        let square = (Drawing::Square, BACKGROUND);
        let ((side, _), pixels) = pixels(
            |i| u8::from(lattice[i as usize] > 0),
            Lattice::new(2, size),
            square,
        );
        assert_eq!(side, 684, "every third site of 2050");
        assert!(
            pixels[..side as usize].iter().all(|&p| p == 1),
            "column c shows x = 3c, where the spins are up"
        );
    }

    #[test]
    fn the_3d_snapshot_is_the_middle_plane() {
        let size = 4u32;
        let lattice: Vec<i8> = (0..64).map(|i| if i / 16 == 2 { 1 } else { -1 }).collect();
        let png = snapshot_png(|i| lattice[i as usize] > 0, Lattice::new(3, size)).unwrap();
        let mut reader = png::Decoder::new(std::io::Cursor::new(png))
            .read_info()
            .unwrap();
        let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buffer).unwrap();
        assert_eq!((info.width, info.height), (512, 512 + KEY_HEIGHT));
        assert_eq!(info.color_type, png::ColorType::Indexed);
        let (lattice, key) = buffer[..info.buffer_size()].split_at(512 * 512);
        assert!(lattice.iter().all(|&p| p == UP));
        for index in [DOWN, UP, BACKGROUND, TEXT] {
            assert!(key.contains(&index), "the key draws palette index {index}");
        }
    }

    /// A triangular lattice's rows shift half a site left each: the image half as wide again,
    /// row 0 starting half the lattice's width in, the last row at the left edge, the corners
    /// background.
    #[test]
    fn triangular_lattices_are_drawn_sheared() {
        let lattice = Lattice::triangular(6);
        let frame = (Drawing::Sheared, BACKGROUND);
        let ((width, side), pixels) = pixels(|i| u8::from(i % 6 == 0), lattice, frame);
        assert_eq!((width, side), (765, 510));
        let row = |r: usize| &pixels[r * width as usize..][..width as usize];
        let first_up = |r: usize| row(r).iter().position(|&p| p == UP).unwrap();
        assert_eq!(
            first_up(0),
            255,
            "x = 0 of row y = 0 starts half the side in"
        );
        assert_eq!(
            first_up(side as usize - 1),
            0,
            "the last row starts at the left edge"
        );
        assert_eq!(
            (row(0)[0], row(0)[width as usize - 256]),
            (BACKGROUND, DOWN)
        );
        assert_eq!(row(side as usize - 1)[width as usize - 1], BACKGROUND);
    }

    /// The honeycomb's sites are triangles alternating up and down: each site's triangle holds
    /// its centroid, and the edge under an up triangle (a site of even `x + y`) is shared with
    /// the site the brick wall bonds it to along `+y`; the half triangles at the rows' ends are
    /// the background.
    #[test]
    fn honeycomb_lattices_are_drawn_as_triangles_sharing_their_bonds_edges() {
        let lattice = Lattice::shaped(Shape::Honeycomb, 2, 4);
        let frame = (Drawing::of(&lattice), u64::MAX);
        let ((width, rows), pixels) = pixels(|site| site, lattice, frame);
        let (scale, height) = (128u32, 222u32);
        assert_eq!((width, rows), (5 * scale, 4 * height));
        let at = |column: u32, row: u32| pixels[(row * width + column) as usize];
        for site in 0..16 {
            let [x, y, _] = lattice.coords(site);
            let up = (x + y).is_multiple_of(2);
            let centroid = y * height + if up { 2 * height / 3 } else { height / 3 };
            assert_eq!(at((x + 1) * scale, centroid), site, "site ({x}, {y})");
            if up && y < 3 {
                let below = lattice.index([x, y + 1, 0]);
                assert_eq!(at((x + 1) * scale, (y + 1) * height + 1), below);
                assert!(!crate::model::lattices::is_gap(&lattice, site * 2 + 1));
            }
        }
        assert_eq!((at(0, 1), at(width - 1, 1)), (u64::MAX, u64::MAX));
    }

    /// An empty site's zero vector takes the background's grey, which no spin's colour is.
    #[test]
    fn empty_sites_of_vector_lattices_are_the_background() {
        assert_eq!(spin_colour([0.0; 3]), VECTOR_BACKGROUND);
        for spin in [
            [1.0, 0.0, 0.0],
            [0.0, -1.0, 0.0],
            [0.0, 0.0, 1.0],
            [0.6, 0.0, -0.8],
        ] {
            assert_ne!(spin_colour(spin), VECTOR_BACKGROUND, "{spin:?}");
        }
    }

    #[test]
    fn the_key_fits_a_narrow_image() {
        let key = colour_key(40, &KEY, BACKGROUND, TEXT);
        assert_eq!(key.len(), 40 * KEY_HEIGHT as usize);
        assert!(key.contains(&UP) && key.contains(&TEXT));
    }
}

//! PNG snapshots of a final lattice: the whole lattice in 2D, the mid-plane `z = L/2` in 3D;
//! +1 and -1 in two colours, named in a key below the lattice.

use super::glyphs::{GLYPH_HEIGHT, GLYPH_WIDTH, ink};
use crate::error::{Error, Result};

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
/// Image pixels per font pixel of the key, and the key's margins.
const KEY_SCALE: u32 = 2;
const KEY_MARGIN: u32 = 5;
/// Rows of the key below the lattice.
pub const KEY_HEIGHT: u32 = GLYPH_HEIGHT * KEY_SCALE + 2 * KEY_MARGIN;

/// The PNG of a lattice of `size^dims` sites whose site `i` (x fastest, as in
/// `final_state.npy`) is up iff `up(i)`: only the drawn sites are read, so a packed lattice of
/// any size is drawn without expanding it.
pub fn snapshot_png(up: impl Fn(u64) -> bool, dims: u32, size: u32) -> Result<Vec<u8>> {
    let plane = plane_start(dims, size);
    let (side, mut pixels) = pixels(|site| up(plane + site), size);
    pixels.extend(colour_key(side));
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, side, side + KEY_HEIGHT);
    encoder.set_color(png::ColorType::Indexed);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_palette(PALETTE.as_slice());
    let encoded = encoder
        .write_header()
        .and_then(|mut writer| writer.write_image_data(&pixels));
    encoded.map_err(|e| Error::State(format!("encoding a lattice snapshot: {e}")))?;
    Ok(png)
}

/// The first site of the `size x size` plane that is drawn: the lattice in 2D, the plane
/// `z = size/2` in 3D.
fn plane_start(dims: u32, size: u32) -> u64 {
    let area = u64::from(size) * u64::from(size);
    let z = if dims == 3 { u64::from(size / 2) } else { 0 };
    z * area
}

/// The image side and its palette indices, row by row: every `stride`-th site of the plane
/// whose site `(x, y)` is up iff `up(y size + x)`, each drawn as a `scale x scale` block.
fn pixels(up: impl Fn(u64) -> bool, size: u32) -> (u32, Vec<u8>) {
    let stride = size.div_ceil(MAX_SIDE);
    let sampled = size.div_ceil(stride);
    let scale = (MIN_SIDE / sampled).max(1);
    let side = sampled * scale;
    let mut pixels = Vec::with_capacity(side as usize * side as usize);
    for row in 0..side {
        let y = u64::from(row / scale * stride);
        pixels.extend(
            (0..side).map(|column| {
                u8::from(up(y * u64::from(size) + u64::from(column / scale * stride)))
            }),
        );
    }
    (side, pixels)
}

/// The key's rows, `width` pixels wide: for each entry a swatch of its colour and its words
/// ("UP +1", "DOWN -1"), cut at the right edge of a narrow image.
fn colour_key(width: u32) -> Vec<u8> {
    let mut band = vec![BACKGROUND; (width * KEY_HEIGHT) as usize];
    let height = GLYPH_HEIGHT * KEY_SCALE;
    let mut x = KEY_MARGIN;
    for (colour, words) in KEY {
        paint(&mut band, width, (x, height), colour, |_, _| true);
        x += height + KEY_MARGIN;
        for c in words.chars() {
            let glyph = |dx: u32, dy: u32| ink(c, dx / KEY_SCALE, dy / KEY_SCALE);
            paint(&mut band, width, (x, GLYPH_WIDTH * KEY_SCALE), TEXT, glyph);
            x += (GLYPH_WIDTH + 1) * KEY_SCALE;
        }
        x += 3 * KEY_MARGIN;
    }
    band
}

/// Sets to `index` the pixels `(dx, dy)` of the key's box at column `x`, `box_width` wide and
/// a glyph high, where `inked(dx, dy)`.
fn paint(
    band: &mut [u8],
    width: u32,
    (x, box_width): (u32, u32),
    index: u8,
    inked: impl Fn(u32, u32) -> bool,
) {
    for dy in 0..GLYPH_HEIGHT * KEY_SCALE {
        for dx in (0..box_width).filter(|&dx| x + dx < width && inked(dx, dy)) {
            band[((KEY_MARGIN + dy) * width + x + dx) as usize] = index;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_lattices_are_magnified() {
        let lattice: Vec<i8> = (0..16).map(|i| if i == 1 { 1 } else { -1 }).collect();
        let (side, pixels) = pixels(|i| lattice[i as usize] > 0, 4);
        assert_eq!(side, 512);
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
        let (side, pixels) = pixels(|i| lattice[i as usize] > 0, size);
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
        let png = snapshot_png(|i| lattice[i as usize] > 0, 3, size).unwrap();
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

    #[test]
    fn the_key_fits_a_narrow_image() {
        let key = colour_key(40);
        assert_eq!(key.len(), 40 * KEY_HEIGHT as usize);
        assert!(key.contains(&UP) && key.contains(&TEXT));
    }
}

//! PNG snapshots of a final lattice: the whole lattice in 2D, the mid-plane `z = L/2` in 3D;
//! +1 and -1 in two colours.

use crate::error::{Error, Result};

/// Lattices wider than this many sites are drawn at every k-th site along each axis (the site
/// itself, not a majority of its block, so that the pixels are spins of the lattice).
pub const MAX_SIDE: u32 = 1024;
/// Small lattices are magnified by a whole factor to at least this many pixels a side.
const MIN_SIDE: u32 = 512;
/// Palette index 0 draws -1 (light amber), 1 draws +1 (dark blue).
const PALETTE: [u8; 6] = [0xf5, 0xc4, 0x50, 0x1f, 0x3b, 0x8c];

/// The PNG of a lattice of `size^dims` sites whose site `i` (x fastest, as in
/// `final_state.npy`) is up iff `up(i)`: only the drawn sites are read, so a packed lattice of
/// any size is drawn without expanding it.
pub fn snapshot_png(up: impl Fn(u64) -> bool, dims: u32, size: u32) -> Result<Vec<u8>> {
    let plane = plane_start(dims, size);
    let (side, pixels) = pixels(|site| up(plane + site), size);
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, side, side);
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
        assert_eq!((info.width, info.height), (512, 512));
        assert_eq!(info.color_type, png::ColorType::Indexed);
        assert!(buffer[..info.buffer_size()].iter().all(|&p| p == 1));
    }
}

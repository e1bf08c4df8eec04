//! A 5x7 pixel font for the few words of a snapshot's colour key, so that a PNG carries its own
//! legend without a font stack.

/// Glyph width and height in font pixels.
pub const GLYPH_WIDTH: u32 = 5;
pub const GLYPH_HEIGHT: u32 = 7;

/// The rows of `c` (bit 4 the leftmost pixel), for the characters of the key; blank for others.
fn rows(c: char) -> [u8; 7] {
    match c {
        'U' => [0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e],
        'P' => [0x1e, 0x11, 0x11, 0x1e, 0x10, 0x10, 0x10],
        'D' => [0x1e, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1e],
        'O' => [0x0e, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0e],
        'W' => [0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0a],
        'N' => [0x11, 0x19, 0x15, 0x13, 0x11, 0x11, 0x11],
        '+' => [0x00, 0x04, 0x04, 0x1f, 0x04, 0x04, 0x00],
        '-' => [0x00, 0x00, 0x00, 0x1f, 0x00, 0x00, 0x00],
        '1' => [0x04, 0x0c, 0x04, 0x04, 0x04, 0x04, 0x0e],
        _ => [0; 7],
    }
}

/// Whether font pixel `(x, y)` of `c` is set.
pub fn ink(c: char, x: u32, y: u32) -> bool {
    x < GLYPH_WIDTH && y < GLYPH_HEIGHT && rows(c)[y as usize] >> (GLYPH_WIDTH - 1 - x) & 1 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glyphs_are_drawn_left_to_right_top_to_bottom() {
        let row = |c, y| (0..GLYPH_WIDTH).map(|x| ink(c, x, y)).collect::<Vec<_>>();
        assert_eq!(row('P', 0), [true, true, true, true, false]);
        assert_eq!(row('1', 6), [false, true, true, true, false]);
        assert!((0..GLYPH_HEIGHT).all(|y| !ink(' ', 2, y)));
        assert!(!ink('U', GLYPH_WIDTH, 0), "outside the glyph");
    }
}

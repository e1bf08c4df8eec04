//! Lines for the person watching: progress, start lines, tables, messages. A run must never end
//! because nobody reads them: `eprintln!` and `println!` panic when their stream is closed
//! (`spinflip run ... 2>&1 | head`, a `tee` that died, a terminal that closed), which would lose
//! the run. These write the line and let a failed write go: the run's results are its files.

use std::fmt::Arguments;
use std::io::Write;

/// Write a line to standard error, ignoring a closed or broken stream.
pub fn note_line(line: Arguments<'_>) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Write a line to standard output, ignoring a closed or broken stream.
pub fn say_line(line: Arguments<'_>) {
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

/// `eprintln!` that never panics: [`note_line`].
macro_rules! note {
    ($($arg:tt)*) => { $crate::console::note_line(format_args!($($arg)*)) };
}

/// `println!` that never panics: [`say_line`].
macro_rules! say {
    ($($arg:tt)*) => { $crate::console::say_line(format_args!($($arg)*)) };
}

pub(crate) use {note, say};

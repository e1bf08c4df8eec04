// TEMPORARY STUB
use std::path::Path;
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> { std::fs::write(path, bytes) }
pub fn ensure_writable_dir(dir: &Path) -> std::io::Result<()> { std::fs::create_dir_all(dir) }

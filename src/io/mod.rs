// TEMPORARY STUB
pub mod atomic; pub mod checkpoint; pub mod output;

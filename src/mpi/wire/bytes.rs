//! The wire's words: little-endian, lengths (64-bit) before arrays, f64 as their bits, so every
//! value crosses exactly. [`Writer`] and [`Reader`] mirror each other call for call.

use bytemuck::Pod;

use crate::error::{Error, Result};

/// An unsigned word of the wire, written little-endian.
pub(super) trait Word: Pod {
    const BYTES: usize;
    fn push_le(self, out: &mut Vec<u8>);
    /// The word of exactly [`Self::BYTES`] bytes.
    fn from_le(bytes: &[u8]) -> Self;
}

macro_rules! word {
    ($($t:ty),*) => {$(
        impl Word for $t {
            const BYTES: usize = std::mem::size_of::<$t>();
            fn push_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn from_le(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("a whole word"))
            }
        }
    )*};
}
word!(u32, u64);

#[derive(Default)]
pub(super) struct Writer(pub(super) Vec<u8>);

impl Writer {
    pub(super) fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    pub(super) fn u32(&mut self, v: u32) {
        v.push_le(&mut self.0);
    }
    pub(super) fn u64(&mut self, v: u64) {
        v.push_le(&mut self.0);
    }
    pub(super) fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }
    pub(super) fn len(&mut self, n: usize) {
        self.u64(n as u64);
    }
    pub(super) fn bytes(&mut self, bytes: &[u8]) {
        self.len(bytes.len());
        self.0.extend_from_slice(bytes);
    }
    pub(super) fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
    /// An array of words. Arrays of a population's systems (copies, copy maps) cross every
    /// resampling step: reserved and written word by word, which compiles to plain copies.
    pub(super) fn words<T: Word>(&mut self, values: &[T]) {
        self.len(values.len());
        self.0.reserve(T::BYTES * values.len());
        for &v in values {
            v.push_le(&mut self.0);
        }
    }
    pub(super) fn f64s(&mut self, values: &[f64]) {
        self.len(values.len());
        self.0
            .extend(values.iter().flat_map(|v| v.to_bits().to_le_bytes()));
    }
    pub(super) fn i32s(&mut self, values: &[i32]) {
        self.words::<u32>(bytemuck::cast_slice(values));
    }
    /// Values of 64-bit words (observations, overlaps), word by word.
    pub(super) fn pods<T: Pod>(&mut self, values: &[T]) {
        self.words::<u64>(bytemuck::cast_slice(values));
    }
}

pub(super) struct Reader<'a> {
    pub(super) bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.bytes.len() < n {
            return Err(truncated());
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }
    pub(super) fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn word<T: Word>(&mut self) -> Result<T> {
        Ok(T::from_le(self.take(T::BYTES)?))
    }
    pub(super) fn u32(&mut self) -> Result<u32> {
        self.word()
    }
    pub(super) fn u64(&mut self) -> Result<u64> {
        self.word()
    }
    pub(super) fn f64(&mut self) -> Result<f64> {
        Ok(f64::from_bits(self.u64()?))
    }
    /// A length of elements of `width` bytes, refused where the message holds fewer.
    pub(super) fn len(&mut self, width: usize) -> Result<usize> {
        let n = usize::try_from(self.u64()?).map_err(|_| truncated())?;
        if n.saturating_mul(width) > self.bytes.len() {
            return Err(truncated());
        }
        Ok(n)
    }
    pub(super) fn bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.len(1)?;
        self.take(n)
    }
    pub(super) fn str(&mut self) -> Result<String> {
        String::from_utf8(self.bytes()?.to_vec()).map_err(|_| truncated())
    }
    /// An array of words ([`Writer::words`]).
    pub(super) fn words<T: Word>(&mut self) -> Result<Vec<T>> {
        let n = self.len(T::BYTES)?;
        let bytes = self.take(T::BYTES * n)?.chunks_exact(T::BYTES);
        Ok(bytes.map(T::from_le).collect())
    }
    pub(super) fn u32s(&mut self) -> Result<Vec<u32>> {
        self.words()
    }
    pub(super) fn u64s(&mut self) -> Result<Vec<u64>> {
        self.words()
    }
    pub(super) fn f64s(&mut self) -> Result<Vec<f64>> {
        let n = self.len(8)?;
        (0..n).map(|_| self.f64()).collect()
    }
    pub(super) fn i32s(&mut self) -> Result<Vec<i32>> {
        Ok(bytemuck::allocation::cast_vec(self.u32s()?))
    }
    /// Values of 64-bit words ([`Writer::pods`]); refuses a partial value.
    pub(super) fn pods<T: Pod>(&mut self) -> Result<Vec<T>> {
        let words = self.u64s()?;
        let values: &[T] = bytemuck::try_cast_slice(&words).map_err(|_| truncated())?;
        Ok(values.to_vec())
    }
    /// Refuses bytes left over after a whole message.
    pub(super) fn end(&self) -> Result<()> {
        match self.bytes.is_empty() {
            true => Ok(()),
            false => Err(truncated()),
        }
    }
}

pub(super) fn truncated() -> Error {
    Error::State("a message between MPI ranks was damaged or of another spinflip version".into())
}

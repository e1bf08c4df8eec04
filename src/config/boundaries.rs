//! How a lattice closes along each axis: `boundaries: (Periodic, Open)` in a model.

use std::fmt;

use serde::de::{self, SeqAccess, Visitor};
use serde::ser::SerializeTuple;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How the lattice closes along one axis: what becomes of the bonds from the last plane of
/// sites to the first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Boundary {
    /// The bonds join the last plane to the first with their couplings `J` (a torus).
    #[default]
    Periodic,
    /// No bonds join the last plane to the first (free edges, `J = 0`).
    Open,
    /// The bonds join the last plane to the first with `-J`: for the Ising, XY and
    /// Heisenberg models and the clock of even `q`, the twist by spin reversal whose free
    /// energy against the periodic one is the interface (domain-wall) free energy.
    Antiperiodic,
}

/// The boundary of each axis (`x`, `y`[, `z`]), as many as the lattice has dimensions; left
/// out, every axis is periodic. RON: `boundaries: (Open, Periodic)` or `[Open, Periodic]`.
#[derive(Debug, Clone, Copy, Eq, Default)]
pub struct Boundaries {
    axes: [Boundary; 3],
    /// How many axes the config named (0 where it left the boundaries out).
    named: u8,
}

impl Boundaries {
    /// Every axis periodic.
    pub const PERIODIC: Boundaries = Boundaries {
        axes: [Boundary::Periodic; 3],
        named: 0,
    };

    /// The boundaries `axes`, one per axis.
    pub fn new(axes: &[Boundary]) -> Self {
        assert!(axes.len() <= 3, "at most 3 axes, got {}", axes.len());
        let mut all = [Boundary::Periodic; 3];
        all[..axes.len()].copy_from_slice(axes);
        Boundaries {
            axes: all,
            named: axes.len() as u8,
        }
    }

    /// The boundary of axis `axis` (0: x, 1: y, 2: z); periodic where the config named fewer.
    pub fn axis(&self, axis: u32) -> Boundary {
        self.axes[axis as usize]
    }

    /// How many axes the config named (0 where it left them out).
    pub fn named(&self) -> u32 {
        u32::from(self.named)
    }

    /// Whether every axis is periodic (left out of the resolved config).
    pub fn is_periodic(&self) -> bool {
        self.axes.iter().all(|&b| b == Boundary::Periodic)
    }

    /// The open axes as bits: bit `d` set where axis `d` is open.
    pub fn open_axes(&self) -> u32 {
        (self.axes.iter().enumerate())
            .filter(|&(_, &b)| b == Boundary::Open)
            .map(|(d, _)| 1 << d)
            .sum()
    }

    /// The antiperiodic axes as bits: bit `d` set where axis `d` is antiperiodic.
    pub fn antiperiodic_axes(&self) -> u32 {
        (self.axes.iter().enumerate())
            .filter(|&(_, &b)| b == Boundary::Antiperiodic)
            .map(|(d, _)| 1 << d)
            .sum()
    }

    /// Whether an axis is antiperiodic.
    pub fn any_antiperiodic(&self) -> bool {
        self.axes.contains(&Boundary::Antiperiodic)
    }

    /// How many axes are antiperiodic (the twists of Kaufman's torus).
    pub fn twisted_axes(&self) -> u32 {
        self.axes
            .iter()
            .filter(|&&b| b == Boundary::Antiperiodic)
            .count() as u32
    }

    /// Whether an axis is open.
    pub fn any_open(&self) -> bool {
        self.axes.contains(&Boundary::Open)
    }

    /// ", open x, antiperiodic y" for a model's name; empty where every axis is periodic.
    pub fn describe(&self) -> String {
        let axis = ["x", "y", "z"];
        (self.axes.iter().zip(axis))
            .filter_map(|(b, a)| match b {
                Boundary::Periodic => None,
                Boundary::Open => Some(format!(", open {a}")),
                Boundary::Antiperiodic => Some(format!(", antiperiodic {a}")),
            })
            .collect()
    }
}

/// Equal when every axis closes alike: `(Periodic, Periodic)` is the boundaries left out.
impl PartialEq for Boundaries {
    fn eq(&self, other: &Self) -> bool {
        self.axes == other.axes
    }
}

impl Serialize for Boundaries {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let named = &self.axes[..self.named as usize];
        let mut tuple = serializer.serialize_tuple(named.len())?;
        for boundary in named {
            tuple.serialize_element(boundary)?;
        }
        tuple.end()
    }
}

impl<'de> Deserialize<'de> for Boundaries {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PerAxis;
        impl<'de> Visitor<'de> for PerAxis {
            type Value = Boundaries;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("one boundary per axis, e.g. (Periodic, Open)")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Boundaries, A::Error> {
                let mut axes = Vec::new();
                while let Some(boundary) = seq.next_element::<Boundary>()? {
                    if axes.len() == 3 {
                        return Err(de::Error::invalid_length(4, &"at most 3 axes"));
                    }
                    axes.push(boundary);
                }
                Ok(Boundaries::new(&axes))
            }
        }
        // `any`, so that both a tuple `(..)` and a list `[..]` are taken.
        deserializer.deserialize_any(PerAxis)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Holder {
        boundaries: Boundaries,
    }

    #[test]
    fn boundaries_read_as_a_tuple_or_a_list_and_write_as_a_tuple() {
        let tuple: Holder = ron::from_str("(boundaries: (Open, Antiperiodic))").unwrap();
        let list: Holder = ron::from_str("(boundaries: [Open, Antiperiodic])").unwrap();
        assert_eq!(tuple, list);
        assert_eq!(tuple.boundaries.axis(0), Boundary::Open);
        assert_eq!(tuple.boundaries.axis(1), Boundary::Antiperiodic);
        assert_eq!(tuple.boundaries.axis(2), Boundary::Periodic);
        assert_eq!(tuple.boundaries.named(), 2);
        let text = ron::to_string(&tuple).unwrap();
        assert_eq!(text, "(boundaries:(Open,Antiperiodic))");
        assert_eq!(tuple.boundaries.describe(), ", open x, antiperiodic y");
    }

    #[test]
    fn more_than_three_axes_or_an_unknown_boundary_are_refused() {
        let four = ron::from_str::<Holder>("(boundaries: (Open, Open, Open, Open))");
        assert!(four.unwrap_err().to_string().contains("at most 3 axes"));
        let unknown = ron::from_str::<Holder>("(boundaries: (Open, Twisted))");
        assert!(unknown.unwrap_err().to_string().contains("Twisted"));
    }

    #[test]
    fn named_periodic_axes_equal_the_boundaries_left_out() {
        let named = Boundaries::new(&[Boundary::Periodic, Boundary::Periodic]);
        assert_eq!(named, Boundaries::PERIODIC);
        assert!(named.is_periodic() && !named.any_antiperiodic());
        assert_eq!(named.describe(), "");
    }
}

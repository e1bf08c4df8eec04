//! A spin glass's couplings given by the user (`couplings: File("couplings.npy")`): read once
//! per run, checked against the config, and noted in the config text the run writes (and
//! whose fingerprint its checkpoints carry). The file is the one a run of the glass writes:
//! `int8` +-1 of a bimodal glass (Ising or vector), `float64` of a Gaussian one.

use std::marker::PhantomData;
use std::path::Path;
use std::sync::Arc;

use crate::config::{Config, Couplings, Disorder};
use crate::error::{Error, Result};
use crate::io::checkpoint::fnv1a;
use crate::io::output::{NpyValue, couplings_shape, npy_shape, npy_values};
use crate::model::Lattice;
use crate::model::couplings::Instance;

/// The instance `config` names, read and checked; `None` where its couplings are drawn.
pub fn read_instance(config: &Config) -> Result<Option<Arc<Instance>>> {
    let Couplings::File(path) = &config.couplings else {
        return Ok(None);
    };
    let (model, samples) = (config.model, config.samples);
    let lattice = Lattice::new(model.dims(), model.size());
    let path = Path::new(path);
    let instance = match model.disorder() {
        Disorder::Ferromagnet => {
            return Err(Error::Usage(format!(
                "couplings: File({path:?}) gives a spin glass's couplings, but the model is the \
                 {} ferromagnet (every J = +1): use EdwardsAnderson, or XY or Heisenberg with \
                 disorder: Bimodal or Gaussian, or leave couplings out",
                model.name()
            )));
        }
        Disorder::Bimodal => {
            let file = CouplingsFile::<i8>::read(path, &lattice, samples)?;
            Instance::from_values(file.values(), &lattice, samples, file.origin())?
        }
        Disorder::Gaussian => {
            let file = CouplingsFile::<f64>::read(path, &lattice, samples)?;
            Instance::from_gaussian_values(file.values(), &lattice, samples, file.origin())?
        }
    };
    Ok(Some(Arc::new(instance)))
}

/// A couplings file read whole and checked to hold `T` values of the shape `couplings.npy` has
/// for the config; its values are decoded as the instance takes them, never copied whole.
struct CouplingsFile<T> {
    source: String,
    bytes: Vec<u8>,
    shape: Vec<usize>,
    offset: usize,
    values: PhantomData<T>,
}

impl<T: NpyValue> CouplingsFile<T> {
    /// The `.npy` file of `T` at `path`, for `samples` samples of `lattice`.
    fn read(path: &Path, lattice: &Lattice, samples: u32) -> Result<Self> {
        let source = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| {
            Error::Usage(format!(
                "couplings: File({source:?}) cannot be read ({e}); a relative path is taken \
                 from the working directory"
            ))
        })?;
        let dtype = T::DTYPE;
        let Some((shape, offset)) = npy_shape::<T>(&bytes) else {
            return Err(Error::Usage(format!(
                "{source}: not a NumPy version-1.0 file of {dtype} in C order (write it with \
                 numpy.save(path, couplings.astype(numpy.{dtype})))"
            )));
        };
        let expected = couplings_shape(lattice, samples);
        if shape != expected {
            return Err(Error::Usage(format!(
                "{source}: shape {} but the config's {samples} samples of L = {} in {}D need {} \
                 (samples, [L,] L, L, dims)",
                tuple(&shape),
                lattice.size,
                lattice.dims,
                tuple(&expected)
            )));
        }
        let data = &bytes[offset..];
        if npy_values::<T>(data, &shape).is_none() {
            return Err(Error::Usage(format!(
                "{source}: {} bytes after the header, but its shape {} holds {} values of {dtype}",
                data.len(),
                tuple(&shape),
                expected.iter().product::<usize>()
            )));
        }
        Ok(CouplingsFile {
            source,
            bytes,
            shape,
            offset,
            values: PhantomData,
        })
    }

    /// Its values, a sample's after another.
    fn values(&self) -> impl ExactSizeIterator<Item = T> + '_ {
        npy_values::<T>(&self.bytes[self.offset..], &self.shape).expect("checked when read")
    }

    /// Its name and its bytes' FNV-1a 64, as the instance keeps them.
    fn origin(&self) -> (String, u64) {
        (self.source.clone(), fnv1a(&self.bytes))
    }
}

/// `shape` as Python writes a tuple.
fn tuple(shape: &[usize]) -> String {
    let parts: Vec<String> = shape.iter().map(usize::to_string).collect();
    match parts.len() {
        1 => format!("({},)", parts[0]),
        _ => format!("({})", parts.join(", ")),
    }
}

/// `config_text` with a line that names the instance and its checksum, so that the written
/// config says where the couplings came from and a checkpoint resumes only with them.
pub fn noting_instance(config_text: String, instance: Option<&Instance>) -> String {
    match instance {
        Some(instance) => format!("{config_text}// couplings read from {}\n", named(instance)),
        None => config_text,
    }
}

/// Where the couplings of a run of `disorder` came from, as its summary records it: `None` for
/// the ferromagnet.
pub fn couplings_source(disorder: Disorder, instance: Option<&Instance>) -> Option<String> {
    match (disorder, instance) {
        (Disorder::Ferromagnet, _) => None,
        (_, None) => Some("drawn from the seed".into()),
        (_, Some(instance)) => Some(named(instance)),
    }
}

/// The instance's file and checksum, as the config text and the summary name it.
fn named(instance: &Instance) -> String {
    format!("{}, FNV-1a 64 {:016x}", instance.source, instance.checksum)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::output::{write_couplings_npy, write_npy_f64, write_npy_i8};
    use crate::model::ising::ising_systems;
    use crate::model::vector::gaussian::coupling_value;
    use crate::model::vector::{VectorCouplings, vector_systems};

    const SPIN_GLASS: &str = "(model: EdwardsAnderson(dims: 2, size: 4), \
        temperatures: Betas([0.5]), replicas: 2, samples: 3, seed: 11)";

    fn spin_glass_from(path: &Path) -> Config {
        Config {
            couplings: Couplings::File(path.display().to_string()),
            ..Config::from_ron_str(SPIN_GLASS).unwrap()
        }
    }

    #[test]
    fn written_couplings_read_back_as_the_drawn_ones() {
        let dir = tempfile::tempdir().unwrap();
        let drawn = ising_systems(&Config::from_ron_str(SPIN_GLASS).unwrap());
        let path = dir.path().join("couplings.npy");
        write_couplings_npy(&path, &drawn).unwrap();
        let instance = read_instance(&spin_glass_from(&path)).unwrap().unwrap();
        assert_eq!(instance.samples(), 3);
        for s in 0..3 {
            assert_eq!(instance.bonds(s), drawn.antiferromagnetic_bonds(s));
        }
        assert_eq!(instance.checksum, fnv1a(&std::fs::read(&path).unwrap()));
        let text = noting_instance("(seed: 11)\n".into(), Some(&instance));
        assert!(
            text.ends_with(&format!("{:016x}\n", instance.checksum)),
            "{text}"
        );
        let source = couplings_source(Disorder::Bimodal, Some(&instance)).unwrap();
        assert!(source.starts_with(&path.display().to_string()), "{source}");
    }

    #[test]
    fn couplings_of_another_shape_are_refused_naming_both_shapes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.npy");
        write_npy_i8(&path, &[2, 4, 4, 2], std::iter::repeat_n(1, 64)).unwrap();
        let msg = read_instance(&spin_glass_from(&path))
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("shape (2, 4, 4, 2)") && msg.contains("need (3, 4, 4, 2)"),
            "{msg}"
        );
    }

    #[test]
    fn files_that_are_not_int8_arrays_or_missing_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.npy");
        std::fs::write(&path, b"not numpy").unwrap();
        let msg = read_instance(&spin_glass_from(&path))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("int8 in C order"), "{msg}");
        let missing = dir.path().join("none.npy");
        let msg = read_instance(&spin_glass_from(&missing))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("cannot be read"), "{msg}");
    }

    #[test]
    fn couplings_for_a_ferromagnet_are_refused() {
        for model in ["Ising(dims: 2, size: 4)", "XY(dims: 2, size: 4)"] {
            let text = format!(
                "(model: {model}, temperatures: Betas([0.5]), replicas: 1, seed: 1, \
                 couplings: File(\"j.npy\"))"
            );
            let msg = read_instance(&Config::from_ron_str(&text).unwrap())
                .unwrap_err()
                .to_string();
            assert!(msg.contains("2D ferromagnet (every J = +1)"), "{msg}");
        }
    }

    /// A vector glass of `disorder` with the couplings of `path`.
    fn vector_glass_from(disorder: &str, path: &Path) -> Config {
        let text = format!(
            "(model: Heisenberg(dims: 2, size: 4, disorder: {disorder}), \
             temperatures: Betas([0.5]), replicas: 2, samples: 3, seed: 11)"
        );
        Config {
            couplings: Couplings::File(path.display().to_string()),
            ..Config::from_ron_str(&text).unwrap()
        }
    }

    /// The Gaussian couplings the vector glass of `config` draws, as its `couplings.npy` holds
    /// them.
    fn drawn_gaussian_values(config: &Config) -> Vec<f64> {
        let drawn = vector_systems(config, None);
        let VectorCouplings::Gaussian(words) = drawn.couplings else {
            panic!("a Gaussian glass: {:?}", drawn.couplings);
        };
        words.iter().flatten().map(|&w| coupling_value(w)).collect()
    }

    #[test]
    fn a_vector_glass_reads_back_the_couplings_it_draws() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("couplings.npy");
        let gaussian = vector_glass_from("Gaussian", &path);
        let shape = [3, 4, 4, 2];
        write_npy_f64(&path, &shape, drawn_gaussian_values(&gaussian).into_iter()).unwrap();
        let bimodal = vector_glass_from("Bimodal", &path);
        let signs = |config: &Config| match vector_systems(config, None).couplings {
            VectorCouplings::Bonds(bonds) => bonds.concat(),
            other => panic!("a bimodal glass: {other:?}"),
        };
        let bimodal_path = dir.path().join("bimodal.npy");
        write_npy_i8(&bimodal_path, &shape, signs(&bimodal).into_iter()).unwrap();
        let bimodal = vector_glass_from("Bimodal", &bimodal_path);
        for config in [gaussian, bimodal] {
            let instance = read_instance(&config).unwrap().unwrap();
            assert_eq!(instance.samples(), 3);
            assert_eq!(
                vector_systems(&config, Some(&instance)),
                vector_systems(&config, None),
                "{:?}",
                config.model
            );
        }
    }

    #[test]
    fn gaussian_couplings_off_the_fixed_point_grid_or_too_large_are_refused_by_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.npy");
        let config = vector_glass_from("Gaussian", &path);
        let drawn = drawn_gaussian_values(&config);
        // Sample 1, site 5, direction 1.
        let bond = 32 + 2 * 5 + 1;
        for bad in [0.1, 2f64.powi(-25), 8.5, f64::NAN] {
            let mut values = drawn.clone();
            values[bond] = bad;
            values[bond + 1] = 0.1;
            write_npy_f64(&path, &[3, 4, 4, 2], values.into_iter()).unwrap();
            let msg = read_instance(&config).unwrap_err().to_string();
            let place = format!("sample 1, site 5, direction 1 holds {bad}");
            assert!(
                msg.contains("multiples of 2^-24 with |J| <= 8") && msg.ends_with(&place),
                "{msg}"
            );
        }
    }

    #[test]
    fn a_vector_glass_refuses_couplings_of_another_shape_or_dtype() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.npy");
        let config = vector_glass_from("Gaussian", &path);
        write_npy_f64(&path, &[3, 4, 4, 3], std::iter::repeat_n(1.0, 144)).unwrap();
        let msg = read_instance(&config).unwrap_err().to_string();
        assert!(
            msg.contains("shape (3, 4, 4, 3)") && msg.contains("need (3, 4, 4, 2)"),
            "{msg}"
        );
        write_npy_i8(&path, &[3, 4, 4, 2], std::iter::repeat_n(1, 96)).unwrap();
        let msg = read_instance(&config).unwrap_err().to_string();
        assert!(msg.contains("file of float64 in C order"), "{msg}");
        let bimodal = vector_glass_from("Bimodal", &path);
        write_npy_f64(&path, &[3, 4, 4, 2], std::iter::repeat_n(1.0, 96)).unwrap();
        let msg = read_instance(&bimodal).unwrap_err().to_string();
        assert!(msg.contains("file of int8 in C order"), "{msg}");
        // A file cut short.
        write_npy_f64(&path, &[3, 4, 4, 2], std::iter::repeat_n(1.0, 96)).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 8]).unwrap();
        let msg = read_instance(&config).unwrap_err().to_string();
        assert!(
            msg.contains("760 bytes after the header, but its shape (3, 4, 4, 2) holds 96"),
            "{msg}"
        );
    }
}

//! A spin glass's couplings given by the user (`couplings: File("couplings.npy")`): read once
//! per run, checked against the config, and noted in the config text the run writes (and
//! whose fingerprint its checkpoints carry).

use std::path::Path;
use std::sync::Arc;

use crate::config::{Config, Couplings, Disorder};
use crate::error::{Error, Result};
use crate::io::checkpoint::fnv1a;
use crate::io::output::{couplings_shape, npy_i8_header};
use crate::model::Lattice;
use crate::model::couplings::Instance;

/// The instance `config` names, read and checked; `None` where its couplings are drawn.
pub fn read_instance(config: &Config) -> Result<Option<Arc<Instance>>> {
    let Couplings::File(path) = &config.couplings else {
        return Ok(None);
    };
    if config.model.disorder() != Disorder::Bimodal {
        return Err(Error::Usage(format!(
            "couplings: File({path:?}) gives a spin glass's couplings, but the model is the \
             Ising ferromagnet (every J = +1): use EdwardsAnderson, or leave couplings out"
        )));
    }
    let model = config.model;
    let lattice = Lattice::new(model.dims(), model.size());
    let instance = instance_from_npy(Path::new(path), &lattice, config.samples)?;
    Ok(Some(Arc::new(instance)))
}

/// The instance in the `.npy` file at `path` for `samples` samples of `lattice`.
fn instance_from_npy(path: &Path, lattice: &Lattice, samples: u32) -> Result<Instance> {
    let source = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| {
        Error::Usage(format!(
            "couplings: File({source:?}) cannot be read ({e}); a relative path is taken from \
             the working directory"
        ))
    })?;
    let Some((shape, offset)) = npy_i8_header(&bytes) else {
        return Err(Error::Usage(format!(
            "{source}: not a NumPy version-1.0 file of int8 in C order (write it with \
             numpy.save(path, couplings.astype(numpy.int8)))"
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
    let values: &[i8] = bytemuck::cast_slice(&bytes[offset..]);
    let count: usize = expected.iter().product();
    if values.len() != count {
        return Err(Error::Usage(format!(
            "{source}: {} values after the header, but its shape {} holds {count}",
            values.len(),
            tuple(&shape)
        )));
    }
    Instance::from_values(values, lattice, samples, (source, fnv1a(&bytes)))
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
    use crate::io::output::{write_couplings_npy, write_npy_i8};
    use crate::model::ising::ising_systems;

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
    fn couplings_for_the_ferromagnet_are_refused() {
        let config = Config {
            couplings: Couplings::File("j.npy".into()),
            ..Config::from_ron_str("(model: Ising(dims: 2, size: 4), temperatures: Betas([0.5]), replicas: 1, seed: 1)").unwrap()
        };
        let msg = read_instance(&config).unwrap_err().to_string();
        assert!(msg.contains("Ising ferromagnet"), "{msg}");
    }
}

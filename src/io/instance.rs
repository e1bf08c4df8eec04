//! A spin glass's couplings given by the user (`couplings: File("couplings.npy")`): read once
//! per run, checked against the config, and noted in the config text the run writes (and
//! whose fingerprint its checkpoints carry). The file is the one a run of the glass writes:
//! `int8` +-1 of a bimodal glass (Ising or vector), `float64` of a Gaussian one.

use std::marker::PhantomData;
use std::path::Path;
use std::sync::Arc;

use crate::config::{Config, Disorder, Quenched};
use crate::error::{Error, Result};
use crate::io::checkpoint::fnv1a;
use crate::io::output::{NpyValue, couplings_shape, npy_shape, npy_values, vacancies_shape};
use crate::model::Lattice;
use crate::model::couplings::Instance;
use crate::model::lattices::is_missing_bond;
use crate::model::vacancies::Vacancies;

/// The instance `config` names, read and checked; `None` where its couplings are drawn.
pub fn read_instance(config: &Config) -> Result<Option<Arc<Instance>>> {
    let Quenched::File(path) = &config.couplings else {
        return Ok(None);
    };
    let (model, samples) = (config.model, config.samples);
    let lattice = Lattice::of(&model);
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
            let file = QuenchedFile::<i8>::read(path, couplings_layout(&lattice, samples))?;
            // The 0 a run writes across an open edge or a honeycomb's gap, where no bond is: any
            // sign will do.
            let (boundaries, bonds) = (model.boundaries(), lattice.bonds());
            let values = file.values().enumerate().map(|(i, j)| {
                let bond = i as u64 % bonds;
                let absent = is_missing_bond(boundaries, &lattice, bond);
                if absent && j == 0 { 1 } else { j }
            });
            Instance::from_values(values, &lattice, samples, file.origin())?
        }
        Disorder::Gaussian => {
            let file = QuenchedFile::<f64>::read(path, couplings_layout(&lattice, samples))?;
            Instance::from_gaussian_values(file.values(), &lattice, samples, file.origin())?
        }
    };
    Ok(Some(Arc::new(instance)))
}

/// The layout of `couplings.npy` for `samples` samples of `lattice`.
fn couplings_layout(lattice: &Lattice, samples: u32) -> FileLayout<'_> {
    FileLayout {
        field: "couplings",
        expected: couplings_shape(lattice, samples),
        axes: "samples, [L,] L, L, directions",
        lattice,
        samples,
    }
}

/// The empty sites `config` names (`vacancies: File(..)`), read and checked, with the file's
/// name and checksum as the config text notes them; `None` where they are drawn.
pub fn read_vacancies(config: &Config) -> Result<Option<(Vacancies, String)>> {
    let Quenched::File(path) = &config.vacancies else {
        return Ok(None);
    };
    let (model, samples) = (config.model, config.samples);
    let lattice = Lattice::of(&model);
    let layout = FileLayout {
        field: "vacancies",
        expected: vacancies_shape(&lattice, samples),
        axes: "samples, [L,] L, L",
        lattice: &lattice,
        samples,
    };
    let file = QuenchedFile::<u8>::read(Path::new(path), layout)?;
    let vacancies = Vacancies::from_marks(file.values(), &lattice, samples, &file.source)?;
    let (source, checksum) = file.origin();
    Ok(Some((
        vacancies,
        format!("{source}, FNV-1a 64 {checksum:016x}"),
    )))
}

/// What a file of quenched disorder holds: its config field, the shape it must have for the
/// config, and that shape's axes as messages name them.
struct FileLayout<'a> {
    field: &'a str,
    expected: Vec<usize>,
    axes: &'a str,
    lattice: &'a Lattice,
    samples: u32,
}

/// A file of quenched disorder (couplings, empty sites) read whole and checked to hold `T`
/// values of the shape spinflip writes for the config; its values are decoded as the instance
/// takes them, never copied whole.
struct QuenchedFile<T> {
    source: String,
    bytes: Vec<u8>,
    shape: Vec<usize>,
    offset: usize,
    values: PhantomData<T>,
}

impl<T: NpyValue> QuenchedFile<T> {
    /// The `.npy` file of `T` at `path`, of `layout`.
    fn read(path: &Path, layout: FileLayout) -> Result<Self> {
        let source = path.display().to_string();
        let field = layout.field;
        let bytes = std::fs::read(path).map_err(|e| {
            Error::Usage(format!(
                "{field}: File({source:?}) cannot be read ({e}); a relative path is taken \
                 from the working directory"
            ))
        })?;
        let dtype = T::DTYPE;
        let Some((shape, offset)) = npy_shape::<T>(&bytes) else {
            return Err(Error::Usage(format!(
                "{source}: not a NumPy version-1.0 file of {dtype} in C order (write it with \
                 numpy.save(path, {field}.astype(numpy.{dtype})))"
            )));
        };
        let expected = layout.expected;
        if shape != expected {
            return Err(Error::Usage(format!(
                "{source}: shape {} but the config's {} samples of L = {} in {}D need {} ({})",
                tuple(&shape),
                layout.samples,
                layout.lattice.size,
                layout.lattice.dims,
                tuple(&expected),
                layout.axes,
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
        Ok(QuenchedFile {
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

/// `config_text` with a line that names the file of the empty sites and its checksum, as
/// [`noting_instance`] names the couplings'.
pub fn noting_vacancies(config_text: String, vacancies: Option<&str>) -> String {
    match vacancies {
        Some(named) => format!("{config_text}// vacancies read from {named}\n"),
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
    use crate::io::output::{write_couplings_npy, write_npy_f64, write_npy_i8, write_npy_u8};
    use crate::model::ising::ising_systems;
    use crate::model::vector::gaussian::coupling_value;
    use crate::model::vector::{VectorCouplings, vector_systems};

    const SPIN_GLASS: &str = "(model: EdwardsAnderson(dims: 2, size: 4), \
        temperatures: Betas([0.5]), replicas: 2, samples: 3, seed: 11)";

    fn spin_glass_from(path: &Path) -> Config {
        Config {
            couplings: Quenched::File(path.display().to_string()),
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
            couplings: Quenched::File(path.display().to_string()),
            ..Config::from_ron_str(&text).unwrap()
        }
    }

    /// The Gaussian couplings the vector glass of `config` draws, as its `couplings.npy` holds
    /// them.
    fn drawn_gaussian_values(config: &Config) -> Vec<f64> {
        let drawn = vector_systems(config, None, None);
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
        let signs = |config: &Config| match vector_systems(config, None, None).couplings {
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
                vector_systems(&config, Some(&instance), None),
                vector_systems(&config, None, None),
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

    /// A diluted Potts model (3 samples of 4 x 4) with the empty sites of `path`.
    fn diluted_from(path: &Path) -> Config {
        let text = "(model: Potts(q: 3, dims: 2, size: 4, dilution: 0.25), \
                    temperatures: Betas([0.5]), replicas: 1, samples: 3, seed: 11)";
        Config {
            vacancies: Quenched::File(path.display().to_string()),
            ..Config::from_ron_str(text).unwrap()
        }
    }

    #[test]
    fn a_diluted_model_reads_back_the_vacancies_it_draws_and_refuses_bad_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vacancies.npy");
        let config = diluted_from(&path);
        let drawing = Config {
            vacancies: Quenched::Drawn,
            ..config.clone()
        };
        let drawn = vector_systems(&drawing, None, None);
        let drawn_vacancies = drawn.vacancies.clone().unwrap();
        let marks: Vec<u8> = drawn_vacancies.marks(&drawn.lattice).collect();
        write_npy_u8(&path, &[3, 4, 4], marks.iter().copied()).unwrap();
        let (read, named) = read_vacancies(&config).unwrap().unwrap();
        assert_eq!(read, drawn_vacancies);
        assert!(named.contains("vacancies.npy, FNV-1a 64 "), "{named}");
        assert!(noting_vacancies("x\n".into(), Some(&named)).ends_with(&format!("from {named}\n")));
        // The file replaces the draw: a config reading it leaves its own draw out.
        assert_eq!(vector_systems(&config, None, None).vacancies, None);

        write_npy_u8(&path, &[3, 4, 4, 1], marks.iter().copied()).unwrap();
        let msg = read_vacancies(&config).unwrap_err().to_string();
        assert!(msg.contains("need (3, 4, 4) (samples, [L,] L, L)"), "{msg}");
        let mut bad = marks;
        bad[16 + 7] = 3;
        write_npy_u8(&path, &[3, 4, 4], bad.into_iter()).unwrap();
        let msg = read_vacancies(&config).unwrap_err().to_string();
        assert!(msg.ends_with("sample 1, site 7 holds 3"), "{msg}");
        write_npy_i8(&path, &[3, 4, 4], std::iter::repeat_n(0, 48)).unwrap();
        let msg = read_vacancies(&config).unwrap_err().to_string();
        assert!(msg.contains("file of uint8 in C order"), "{msg}");
    }
}

//! What a run's summary records last, of where its results came from: the source of a
//! spin glass's couplings and of a diluted model's empty sites, and the provenance of the
//! invocation that finished the run.

use serde::{Deserialize, Serialize};

use crate::config::{Config, Disorder, Quenched};
use crate::io::instance::couplings_source;
use crate::io::provenance::Provenance;
use crate::model::couplings::Instance;

/// The last fields of `summary.json` and `annealing.json`, flattened into them; each is left
/// out where absent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunOrigin {
    /// Where a spin glass's couplings came from: drawn from the seed, or the file the config
    /// names with its FNV-1a 64; left out for the ferromagnet.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub couplings: Option<String>,
    /// Where a diluted model's empty sites came from: drawn from the seed with the dilution,
    /// or the file the config names; left out where every site is occupied.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub vacancies: Option<String>,
    /// Build, host, device, command line and times of the invocation that finished the run.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub provenance: Option<Provenance>,
}

impl RunOrigin {
    /// The origin of a run of `disorder` on the couplings `instance` gives, or drawn where it
    /// gives none; the provenance is the finishing invocation's to add.
    pub fn new(disorder: Disorder, instance: Option<&Instance>) -> Self {
        RunOrigin {
            couplings: couplings_source(disorder, instance),
            vacancies: None,
            provenance: None,
        }
    }

    /// This origin with the empty sites of `config`'s model noted, where it is diluted.
    pub fn with_vacancies_of(self, config: &Config) -> Self {
        let dilution = config.model.dilution();
        let vacancies = match &config.vacancies {
            _ if dilution == 0.0 => None,
            Quenched::Drawn => Some(format!("drawn from the seed, dilution {dilution}")),
            Quenched::File(path) => Some(format!("read from {path}")),
        };
        RunOrigin { vacancies, ..self }
    }
}

//! The check of the sweep schedule.

use crate::config::{ConfigError, Sweeps, invalid};

/// At least one measurement, and no more sweeps than the random-number counter numbers.
pub(crate) fn validate_sweeps(sweeps: &Sweeps) -> Result<(), ConfigError> {
    let Sweeps {
        thermalize,
        measure,
        every,
    } = *sweeps;
    if measure == 0 {
        return invalid("sweeps: measure must be at least 1, got 0".into());
    }
    if every == 0 {
        return invalid("sweeps: every must be at least 1, got 0".into());
    }
    if every > measure {
        return invalid(format!(
            "sweeps: every ({every}) must not exceed measure ({measure}): there would be no measurement"
        ));
    }
    // The sweep number is a 32-bit word of the Philox counter: more sweeps would reuse randoms.
    match thermalize.checked_add(measure) {
        Some(total) if total <= u64::from(u32::MAX) => Ok(()),
        _ => invalid(format!(
            "sweeps: thermalize + measure ({thermalize} + {measure}) exceeds {} sweeps, \
             the range of the random-number counter; split the run into several seeds",
            u32::MAX
        )),
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use crate::config::testing::sample_with;

    #[test]
    fn every_equal_to_measure_gives_one_measurement() {
        let config = Config::from_ron_str(&sample_with("every: 10", "every: 20000")).unwrap();
        config.validate().unwrap();
        assert_eq!(config.sweeps.measurements(), 1);
    }
}

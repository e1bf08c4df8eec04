//! Where, when and how a run ran: `summary.json`'s and `annealing.json`'s `provenance` (the
//! build's commit and features, the host, the device, the command line, this invocation's start,
//! end and wall time). Two runs of one config differ here and nowhere else but in their rates,
//! so whoever compares results leaves it out.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::engine::EngineInfo;

/// The git commit the binary was built from (`build.rs`; "unknown" outside a git checkout).
pub const BUILD_COMMIT: &str = env!("SPINFLIP_COMMIT");

/// The provenance of one invocation of a run (a resumed run records the invocation that
/// finished it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// The git commit of the build, "unknown" where it was built outside a git checkout.
    pub commit: String,
    /// The cargo features built in (`cuda`, `mpi`).
    pub features: Vec<String>,
    pub host: String,
    /// The device the engine ran on and its backend (on rank 0 of an MPI job: its own).
    pub device: String,
    /// The device's driver and version as the backend reports it (left out on the CPU).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub driver: String,
    pub command_line: Vec<String>,
    /// Whether this invocation continued a checkpoint (`--resume`).
    pub resumed: bool,
    /// This invocation's start and end, UTC, RFC 3339.
    pub started: String,
    pub ended: String,
    /// Seconds from `started` to `ended`.
    pub wall_seconds: f64,
}

/// The start of an invocation, to make its [`Provenance`] at the end.
#[derive(Debug, Clone, Copy)]
pub struct ProvenanceClock {
    started: SystemTime,
    clock: Instant,
    resumed: bool,
}

impl ProvenanceClock {
    pub fn start(resumed: bool) -> Self {
        ProvenanceClock {
            started: SystemTime::now(),
            clock: Instant::now(),
            resumed,
        }
    }

    /// The provenance of the invocation started at this clock, ending now, on the engine `info`.
    pub fn finish(&self, info: &EngineInfo) -> Provenance {
        let features = [
            ("cuda", cfg!(feature = "cuda")),
            ("mpi", cfg!(feature = "mpi")),
        ];
        Provenance {
            commit: BUILD_COMMIT.to_string(),
            features: features
                .iter()
                .filter(|(_, on)| *on)
                .map(|(name, _)| name.to_string())
                .collect(),
            host: host_name(),
            device: format!("{} ({})", info.adapter, info.backend),
            driver: info.driver.clone(),
            command_line: std::env::args_os()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            resumed: self.resumed,
            started: rfc3339(self.started),
            ended: rfc3339(SystemTime::now()),
            wall_seconds: self.clock.elapsed().as_secs_f64(),
        }
    }
}

/// This machine's host name ("unknown" where it cannot be read).
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "unknown".to_string())
}

/// `time` in UTC as RFC 3339 to the second (`2026-11-28T04:10:00Z`).
pub fn rfc3339(time: SystemTime) -> String {
    let seconds = time
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let (days, second_of_day) = (seconds.div_euclid(86400), seconds.rem_euclid(86400));
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        second_of_day / 3600,
        second_of_day / 60 % 60,
        second_of_day % 60
    )
}

/// The proleptic Gregorian date of `days` after 1970-01-01 (H. Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * shifted_month + 2) / 5 + 1) as u32;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn times_are_written_in_rfc3339_utc() {
        let at = |seconds| rfc3339(UNIX_EPOCH + Duration::from_secs(seconds));
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(951_955_199), "2000-03-01T23:59:59Z");
        assert_eq!(at(1_735_689_599), "2024-12-31T23:59:59Z");
        assert_eq!(at(4_107_542_400), "2100-03-01T00:00:00Z");
    }

    #[test]
    fn provenance_names_the_build_host_device_and_times() {
        let clock = ProvenanceClock::start(true);
        let info = EngineInfo {
            backend: "cpu".into(),
            engine: "simple".into(),
            adapter: "CPU (2 threads)".into(),
            driver: String::new(),
        };
        let provenance = clock.finish(&info);
        assert_eq!(provenance.device, "CPU (2 threads) (cpu)");
        assert!(provenance.driver.is_empty());
        let on_gpu = clock.finish(&EngineInfo {
            driver: "NVIDIA 580.159.04".into(),
            ..info
        });
        assert_eq!(on_gpu.driver, "NVIDIA 580.159.04");
        assert!(provenance.resumed);
        assert!(!provenance.commit.is_empty() && !provenance.host.is_empty());
        assert_eq!(
            provenance.features.contains(&"mpi".to_string()),
            cfg!(feature = "mpi")
        );
        assert!(provenance.started <= provenance.ended, "{provenance:?}");
        assert!(provenance.started.ends_with('Z') && provenance.started.len() == 20);
        assert!(provenance.wall_seconds >= 0.0);
    }
}

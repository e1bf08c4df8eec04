//! Stopping a run early but resumably, as batch systems need: SIGTERM, SIGINT, SIGUSR1, SIGUSR2
//! and SIGHUP (the scheduler's warnings, Ctrl-C, a closed terminal) and a wall-time limit make
//! the loops write a checkpoint at their next plan boundary and end with
//! [`RESUME_EXIT_STATUS`], which means "resume me". A signal handler only sets a flag
//! ([`install_handlers`]); the loops ask [`Stops::due`] between plans, so a stop never cuts a
//! plan, a checkpoint or an output file in two.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

/// The exit status of a run stopped by a signal or its wall time after writing its checkpoint:
/// `EX_TEMPFAIL` of `sysexits.h`, "temporary failure, try again": continue it with `--resume`.
pub const RESUME_EXIT_STATUS: u8 = 75;

/// The number of the signal that asked for a stop, 0 while none did (an `Arc` because the
/// handlers of `signal-hook` hold one).
static REQUESTED: LazyLock<Arc<AtomicUsize>> = LazyLock::new(|| Arc::new(AtomicUsize::new(0)));

/// The signals that stop a run at its next plan boundary.
#[cfg(unix)]
const STOP_SIGNALS: [i32; 5] = [
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGUSR1,
    // mpirun forwards SIGUSR2 as it does SIGUSR1; a closed terminal sends SIGHUP.
    signal_hook::consts::SIGUSR2,
    signal_hook::consts::SIGHUP,
];
#[cfg(not(unix))]
const STOP_SIGNALS: [i32; 2] = [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT];

/// Make the stop signals (SIGTERM, SIGINT, SIGUSR1, SIGUSR2, SIGHUP) ask for a stop instead of
/// ending the process (every rank of an MPI job installs them, so that a signal sent to the
/// whole job leaves the ranks serving rank 0 until it has written its checkpoint). A second SIGINT (Ctrl-C pressed again while
/// the run finishes its plan) ends the process at once, with status 1.
pub fn install_handlers() -> std::io::Result<()> {
    let interrupted = Arc::new(AtomicBool::new(false));
    // Registered actions run in order: the shutdown sees the flag of the earlier SIGINT only.
    signal_hook::flag::register_conditional_shutdown(
        signal_hook::consts::SIGINT,
        1,
        Arc::clone(&interrupted),
    )?;
    signal_hook::flag::register(signal_hook::consts::SIGINT, interrupted)?;
    for signal in STOP_SIGNALS {
        signal_hook::flag::register_usize(signal, Arc::clone(&REQUESTED), signal as usize)?;
    }
    Ok(())
}

/// The signal that asked for a stop, if one did.
fn requested_signal() -> Option<i32> {
    match REQUESTED.load(Ordering::Relaxed) {
        0 => None,
        signal => Some(signal as i32),
    }
}

/// Why a run stopped before its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// The signal of this number arrived.
    Signal(i32),
    /// The next plan and the checkpoint after it might not have ended before the wall time.
    WallTime,
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StopReason::Signal(signal) => write!(f, "{}", signal_name(*signal)),
            StopReason::WallTime => write!(f, "the wall time (--wall-time) was near"),
        }
    }
}

fn signal_name(signal: i32) -> String {
    match signal {
        signal_hook::consts::SIGTERM => "SIGTERM".into(),
        signal_hook::consts::SIGINT => "SIGINT".into(),
        #[cfg(unix)]
        signal_hook::consts::SIGUSR1 => "SIGUSR1".into(),
        #[cfg(unix)]
        signal_hook::consts::SIGUSR2 => "SIGUSR2".into(),
        #[cfg(unix)]
        signal_hook::consts::SIGHUP => "SIGHUP".into(),
        other => format!("signal {other}"),
    }
}

/// When a loop stops: at a signal, or before its wall time runs out. It keeps what one plan and
/// one checkpoint write have cost so far, and stops while twice their sum still fits before the
/// deadline: the next plan and the checkpoint after it may each be slower than the last, and a
/// batch system kills at its limit without asking.
#[derive(Debug, Clone)]
pub struct Stops {
    deadline: Option<Instant>,
    /// The slowest plan (with its host work) so far.
    plan: Duration,
    /// The last checkpoint write (download and file); until one is written, a plan's cost.
    checkpoint: Option<Duration>,
}

impl Stops {
    /// Stops at a signal, and before `deadline` where there is one.
    pub fn new(deadline: Option<Instant>) -> Self {
        Stops {
            deadline,
            plan: Duration::ZERO,
            checkpoint: None,
        }
    }

    pub fn plan_took(&mut self, time: Duration) {
        self.plan = self.plan.max(time);
    }

    pub fn checkpoint_took(&mut self, time: Duration) {
        self.checkpoint = Some(time);
    }

    /// Whether to stop now, at a plan boundary, and why.
    pub fn due(&self) -> Option<StopReason> {
        self.decide(requested_signal(), Instant::now())
    }

    /// [`Stops::due`] with the signal received so far and the time given.
    fn decide(&self, signal: Option<i32>, now: Instant) -> Option<StopReason> {
        if let Some(signal) = signal {
            return Some(StopReason::Signal(signal));
        }
        let deadline = self.deadline?;
        let margin = 2 * (self.plan + self.checkpoint.unwrap_or(self.plan));
        (now + margin >= deadline).then_some(StopReason::WallTime)
    }
}

/// A wall time as `--wall-time` takes it: seconds (`85800`), a sum of amounts with units `d`,
/// `h`, `m`, `s` (`23h50m`, `1d12h`, `90s`), or SLURM's `[D-]HH:MM:SS` (as `squeue -o %L` prints
/// the time a job has left).
pub fn parse_wall_time(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let seconds = match text.contains(':') {
        true => clock_seconds(text),
        false => unit_seconds(text),
    };
    match seconds {
        Some(s) if s > 0 => Ok(Duration::from_secs(s)),
        _ => Err(format!(
            "{text:?} is not a wall time: give seconds (85800), amounts with units d, h, m, s \
             (23h50m) or [D-]HH:MM:SS (0-23:50:00), more than zero"
        )),
    }
}

/// `[D-]HH:MM:SS` or `MM:SS` in seconds.
fn clock_seconds(text: &str) -> Option<u64> {
    let (days, clock) = match text.split_once('-') {
        Some((days, clock)) => (days.parse::<u64>().ok()?, clock),
        None => (0, text),
    };
    let parts: Vec<u64> = clock
        .split(':')
        .map(|p| p.parse::<u64>().ok())
        .collect::<Option<_>>()?;
    let (h, m, s) = match parts[..] {
        [h, m, s] => (h, m, s),
        [m, s] => (0, m, s),
        _ => return None,
    };
    (m < 60 && s < 60).then(|| ((days * 24 + h) * 60 + m) * 60 + s)
}

/// Plain seconds, or amounts with units (`1d2h3m4s`, each unit at most once, in that order).
fn unit_seconds(text: &str) -> Option<u64> {
    if let Ok(seconds) = text.parse::<u64>() {
        return Some(seconds);
    }
    let mut rest = text;
    let mut total = 0u64;
    for (unit, seconds) in [('d', 86400), ('h', 3600), ('m', 60), ('s', 1)] {
        if let Some((amount, after)) = rest.split_once(unit) {
            total += amount.parse::<u64>().ok()? * seconds;
            rest = after;
        }
    }
    (rest.is_empty() && !text.is_empty()).then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wall_times_parse_in_every_form() {
        let cases = [
            ("85800", 85800),
            ("23h50m", 23 * 3600 + 50 * 60),
            ("1d12h", 36 * 3600),
            ("90s", 90),
            ("2m30s", 150),
            ("0-23:50:00", 23 * 3600 + 50 * 60),
            ("1-00:00:01", 86401),
            ("12:00", 720),
        ];
        for (text, seconds) in cases {
            assert_eq!(
                parse_wall_time(text),
                Ok(Duration::from_secs(seconds)),
                "{text}"
            );
        }
        for bad in ["", "0", "h", "3x", "1h1d", "12:60", "1:2:3:4", "-5", "0s"] {
            let error = parse_wall_time(bad).unwrap_err();
            assert!(error.contains("is not a wall time"), "{bad}: {error}");
        }
    }

    /// 100 s left: plans of 10 s and a checkpoint of 30 s need a margin of 80 s; 10 s more
    /// of either, or 20 s less time, make it stop. A signal stops at once.
    #[test]
    fn a_stop_leaves_twice_a_plan_and_a_checkpoint_before_the_wall_time() {
        let now = Instant::now();
        let mut stops = Stops::new(Some(now + Duration::from_secs(100)));
        stops.plan_took(Duration::from_secs(10));
        stops.plan_took(Duration::from_secs(4));
        assert_eq!(
            stops.decide(None, now),
            None,
            "no checkpoint yet: 2 (10 + 10) s"
        );
        stops.checkpoint_took(Duration::from_secs(30));
        assert_eq!(stops.decide(None, now), None);
        let later = now + Duration::from_secs(20);
        assert_eq!(stops.decide(None, later), Some(StopReason::WallTime));
        stops.checkpoint_took(Duration::from_secs(40));
        assert_eq!(stops.decide(None, now), Some(StopReason::WallTime));
        let signalled = Stops::new(None).decide(Some(signal_hook::consts::SIGTERM), now);
        assert_eq!(
            signalled,
            Some(StopReason::Signal(signal_hook::consts::SIGTERM))
        );
        assert_eq!(signalled.unwrap().to_string(), "SIGTERM");
        assert_eq!(Stops::new(None).decide(None, later), None, "no wall time");
    }
}

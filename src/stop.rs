//! Stopping a run early but resumably, as batch systems need: SIGTERM, SIGINT, SIGUSR1, SIGUSR2
//! and SIGHUP (the scheduler's warnings, Ctrl-C, a closed terminal) and a wall-time limit make
//! the loops write a checkpoint at their next plan boundary and end with
//! [`RESUME_EXIT_STATUS`], which means "resume me". A signal handler only sets a flag
//! ([`install_handlers`]); the loops ask [`Stops::due`] between plans, so a stop never cuts a
//! plan, a checkpoint or an output file in two, and [`Stops::plan_end`] keeps plans short
//! enough that the stop comes within seconds, whatever the lattice.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::console::note;

/// The exit status of a run stopped by a signal or its wall time after writing its checkpoint:
/// `EX_TEMPFAIL` of `sysexits.h`, "temporary failure, try again": continue it with `--resume`.
pub const RESUME_EXIT_STATUS: u8 = 75;

/// The exit status after a second Ctrl-C, which ends a run at once without a checkpoint: the
/// shells' 128 + SIGINT.
pub const INTERRUPTED_EXIT_STATUS: i32 = 130;

/// How long a plan should take at most: a stop waits for the plan in flight and the checkpoint
/// after it, and a batch system kills a job this long after its SIGTERM (SLURM's `KillWait`
/// is 30 s by default). A device's plans of a second lose nothing to the boundaries between
/// them (milliseconds).
const PLAN_TIME: Duration = Duration::from_secs(1);

/// How many times the sweeps of the plan before a plan may hold at most: the pace of a plan
/// of a few sweeps, its fixed costs included, is no sure guide to a plan of many (cluster
/// updates slow down as clusters grow). A ramp from one sweep to thousands takes four plans.
const PLAN_GROWTH: u64 = 8;

/// A sweep longer than this is more than a stop should wait: the run says so, once.
const LONG_SWEEP: Duration = Duration::from_secs(10);

/// How often the watcher of [`install_handlers`] looks at the signals' flags.
const WATCH_INTERVAL: Duration = Duration::from_millis(50);

/// The number of the signal that asked for a stop, 0 while none did (an `Arc` because the
/// handlers of `signal-hook` hold one).
static REQUESTED: LazyLock<Arc<AtomicUsize>> = LazyLock::new(|| Arc::new(AtomicUsize::new(0)));

/// The time of the longest plan so far, in milliseconds: the wait a stop signal is told of.
static PLAN_MILLIS: AtomicU64 = AtomicU64::new(0);

/// Files an abrupt end (a second Ctrl-C) removes: the run directory's lock.
static REMOVED_AT_ABRUPT_END: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// When the process started, as near as it can tell: `--wall-time` counts from it.
static PROCESS_START: OnceLock<Instant> = OnceLock::new();

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

/// Note the process's start, for `--wall-time` (the first thing `main` does); the start is the
/// first call of [`process_start`] where nothing noted it.
pub fn note_process_start() {
    process_start();
}

/// The start of the process ([`note_process_start`]).
pub fn process_start() -> Instant {
    *PROCESS_START.get_or_init(Instant::now)
}

/// Whether this process answers a stop signal with a line: the ranks that serve rank 0 leave it
/// to rank 0 ([`leave_acknowledgements_to_rank_0`]).
static ACKNOWLEDGES: AtomicBool = AtomicBool::new(true);

/// SIGINTs received: the second ends the run at once.
static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);

/// Make the stop signals (SIGTERM, SIGINT, SIGUSR1, SIGUSR2, SIGHUP) ask for a stop instead of
/// ending the process (every rank of an MPI job installs them, so that a signal sent to the
/// whole job leaves the ranks serving rank 0 until it has written its checkpoint). A watching
/// thread says at once that the stop is coming; a second SIGINT (Ctrl-C pressed again while
/// the run finishes its plan) ends the process there and then, with a line that says so, the
/// run's lock removed and status [`INTERRUPTED_EXIT_STATUS`].
pub fn install_handlers() -> std::io::Result<()> {
    for signal in STOP_SIGNALS {
        signal_hook::flag::register_usize(signal, Arc::clone(&REQUESTED), signal as usize)?;
    }
    // SAFETY: the action only adds to an atomic integer, which is async-signal-safe.
    #[allow(unsafe_code, reason = "counting signals in their handler")]
    unsafe {
        signal_hook::low_level::register(signal_hook::consts::SIGINT, || {
            INTERRUPTS.fetch_add(1, Ordering::Relaxed);
        })?;
    }
    // A handler may do almost nothing safely: the watcher prints and ends the process.
    std::thread::Builder::new()
        .name("spinflip-signals".into())
        .spawn(watch)?;
    Ok(())
}

/// Watch what the handlers record: acknowledge the first stop signal, end the process at the
/// second SIGINT.
fn watch() {
    let mut acknowledged = false;
    loop {
        std::thread::sleep(WATCH_INTERVAL);
        if INTERRUPTS.load(Ordering::Relaxed) >= 2 {
            end_abruptly();
        }
        if let (false, Some(signal)) = (acknowledged, requested_signal()) {
            acknowledged = true;
            if ACKNOWLEDGES.load(Ordering::Relaxed) {
                note!("{}", acknowledgement(signal, plan_time()));
            }
        }
    }
}

/// Leave the line that answers a stop signal to rank 0, which decides the stop: a rank that
/// serves it prints none.
pub fn leave_acknowledgements_to_rank_0() {
    ACKNOWLEDGES.store(false, Ordering::Relaxed);
}

/// The line a stop signal is answered with at once.
fn acknowledgement(signal: i32, plan: Duration) -> String {
    let ctrl_c = match signal == signal_hook::consts::SIGINT {
        true => "; Ctrl-C again ends it at once without one",
        false => "",
    };
    // Before the first plan has ended, its length is not known: it is the least a plan holds.
    let wait = match plan.is_zero() {
        true => "the first, of one plane's pass or one sweep".to_string(),
        false => format!("about {:.0} s", plan.as_secs_f64().max(1.0)),
    };
    format!(
        "spinflip: {}: stopping after the plan under way ({wait}) with a checkpoint, exit status \
         {RESUME_EXIT_STATUS}{ctrl_c}",
        signal_name(signal),
    )
}

/// The longest plan so far.
fn plan_time() -> Duration {
    Duration::from_millis(PLAN_MILLIS.load(Ordering::Relaxed))
}

/// End the process now (a second Ctrl-C), removing the run's lock: the last checkpoint stays.
fn end_abruptly() -> ! {
    note!(
        "spinflip: SIGINT again: ending now without a checkpoint; `--resume` continues from \
         the last one (exit status {INTERRUPTED_EXIT_STATUS})"
    );
    let files = REMOVED_AT_ABRUPT_END
        .lock()
        .map(|f| f.clone())
        .unwrap_or_default();
    for file in files {
        let _ = std::fs::remove_file(file);
    }
    std::process::exit(INTERRUPTED_EXIT_STATUS)
}

/// Remove `path` if the process ends abruptly ([`install_handlers`]), until
/// [`keep_at_abrupt_end`].
pub fn remove_at_abrupt_end(path: &Path) {
    if let Ok(mut files) = REMOVED_AT_ABRUPT_END.lock() {
        files.push(path.to_path_buf());
    }
}

/// Undo [`remove_at_abrupt_end`] for `path`.
pub fn keep_at_abrupt_end(path: &Path) {
    if let Ok(mut files) = REMOVED_AT_ABRUPT_END.lock() {
        files.retain(|f| f != path);
    }
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
/// batch system kills at its limit without asking. It also paces the plans
/// ([`Stops::plan_end`]), so that a stop waits for at most about [`PLAN_TIME`].
#[derive(Debug, Clone)]
pub struct Stops {
    deadline: Option<Instant>,
    /// The slowest plan (with its host work) so far.
    plan: Duration,
    /// The last checkpoint write (download and file); until one is written, a plan's cost.
    checkpoint: Option<Duration>,
    /// The units the next plan may hold at most, from the pace of the last.
    allowed: u64,
    /// Whether the run was told that its units are longer than a stop should wait.
    told_of_long_sweeps: bool,
}

impl Stops {
    /// Stops at a signal, and before `deadline` where there is one.
    pub fn new(deadline: Option<Instant>) -> Self {
        Stops {
            deadline,
            plan: Duration::ZERO,
            checkpoint: None,
            allowed: 1,
            told_of_long_sweeps: false,
        }
    }

    /// The end of the next plan from unit `from`: the loop's own `end` (its next measurement,
    /// checkpoint, tuning stop...) where the plan fits in [`PLAN_TIME`] at the pace of the
    /// plans so far, else sooner. Positions count the loop's units, the least a plan can hold:
    /// a pass of a sweep on one plane where the engine cuts sweeps
    /// ([`crate::engine::Step::Part`]), else a sweep; in steps of cluster updates a plane of
    /// an update's labelling too ([`crate::cluster::StepUnits`]). The first
    /// plan is one unit (nothing is known of the pace yet: one sweep of a 2048^3 lattice on a
    /// CPU takes a minute), and each may hold at most [`PLAN_GROWTH`] times the units of the
    /// one before. Where the loop's plans are short, these are its plans as they were, whatever
    /// the clock says.
    pub fn plan_end(&self, from: u64, end: u64) -> u64 {
        end.min(from.saturating_add(self.allowed))
    }

    /// [`Stops::plan_end`] in a loop whose sweeps are `units` units each (`end` at a sweep's
    /// end): a plan from inside a sweep ends by the sweep's end, and one from a sweep's start
    /// ends inside it or at a sweep's end, so that every plan is pieces of one sweep or whole
    /// sweeps.
    pub fn piece_end(&self, from: u64, end: u64, units: u64) -> u64 {
        let to = self.plan_end(from, end);
        let sweep_end = (from / units + 1) * units;
        match from % units {
            0 if to >= sweep_end => to / units * units,
            _ => to.min(sweep_end),
        }
    }

    /// A plan of `units` units took `time`, with its host work.
    pub fn plan_took(&mut self, units: u64, time: Duration) {
        self.plan = self.plan.max(time);
        PLAN_MILLIS.fetch_max(self.plan.as_millis() as u64, Ordering::Relaxed);
        let per_unit = time.as_secs_f64() / units.max(1) as f64;
        let fitting = (PLAN_TIME.as_secs_f64() / per_unit.max(f64::MIN_POSITIVE)) as u64;
        self.allowed = fitting.clamp(1, self.allowed.saturating_mul(PLAN_GROWTH));
        if per_unit > LONG_SWEEP.as_secs_f64() && !self.told_of_long_sweeps {
            self.told_of_long_sweeps = true;
            log::warn!("{}", long_sweep_warning(per_unit));
        }
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

/// What a run whose least plan (a sweep its engine cannot cut, an update it makes whole)
/// takes `seconds` is told: a stop signal waits for the one under way.
fn long_sweep_warning(seconds: f64) -> String {
    format!(
        "a sweep (or cluster update) takes {seconds:.0} s here and this run cannot cut it: a stop \
         signal waits for the one under way, which may be longer than a batch system waits \
         after its SIGTERM (SLURM's KillWait is 30 s); --wall-time stops in time"
    )
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
        stops.plan_took(100, Duration::from_secs(10));
        stops.plan_took(100, Duration::from_secs(4));
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

    /// Plans start at one sweep and grow eightfold at most: where sweeps are fast, the loop's
    /// own ends (here 64) bound them, whatever the clock; where a sweep takes 0.3 s, plans hold
    /// 3 sweeps (0.9 s), and where one takes 5 s, one.
    #[test]
    fn plans_start_at_one_sweep_and_grow_to_fill_the_plan_time() {
        let mut stops = Stops::new(None);
        let mut ends = vec![];
        let mut from = 0;
        while from < 100 {
            let to = stops.plan_end(from, (from / 64 + 1) * 64);
            stops.plan_took(to - from, Duration::from_micros(10 * (to - from)));
            ends.push(to);
            from = to;
        }
        assert_eq!(ends, [1, 9, 64, 128]);
        let mut slow = Stops::new(None);
        slow.plan_took(1, Duration::from_millis(300));
        slow.plan_took(2, Duration::from_millis(600));
        assert_eq!(slow.plan_end(1000, 2000), 1003);
        slow.plan_took(1, Duration::from_secs(5));
        assert_eq!(slow.plan_end(1000, 2000), 1001);
        assert!(!slow.told_of_long_sweeps, "a sweep of 5 s is no news");
        slow.plan_took(1, Duration::from_secs(66));
        assert!(slow.told_of_long_sweeps);
        assert!(
            long_sweep_warning(66.3).starts_with("a sweep (or cluster update) takes 66 s here ")
        );
    }

    /// In sweeps of 10 units of 40 ms: plans of pieces of the first sweep (1, 8 and the 1 left),
    /// then of whole sweeps, the 25 units of a second cut back to the 20 of two sweeps; a plan
    /// from inside a sweep ends by its end.
    #[test]
    fn pieces_of_a_sweep_stay_inside_it_and_whole_sweeps_stay_whole() {
        let mut stops = Stops::new(None);
        let mut ends = vec![];
        let mut from = 0;
        while from < 100 {
            let to = stops.piece_end(from, 100, 10);
            stops.plan_took(to - from, Duration::from_millis(40 * (to - from)));
            ends.push(to);
            from = to;
        }
        assert_eq!(ends, [1, 9, 10, 30, 50, 70, 90, 100]);
        assert_eq!(stops.piece_end(35, 100, 10), 40, "from inside a sweep");
        let slow = Stops::new(None);
        assert_eq!(
            slow.piece_end(30, 100, 1),
            31,
            "sweeps whole: a unit is a sweep"
        );
    }

    /// The first stop signal is answered with the wait (the longest plan so far; before any
    /// plan ended, one sweep's) and the status; Ctrl-C is told how to end at once.
    #[test]
    fn a_stop_signal_is_acknowledged_with_the_wait_and_the_status() {
        let term = acknowledgement(signal_hook::consts::SIGTERM, Duration::from_millis(2600));
        assert_eq!(
            term,
            "spinflip: SIGTERM: stopping after the plan under way (about 3 s) with a \
             checkpoint, exit status 75"
        );
        let int = acknowledgement(signal_hook::consts::SIGINT, Duration::ZERO);
        assert!(
            int.contains("(the first, of one plane's pass or one sweep)"),
            "{int}"
        );
        assert!(
            int.ends_with("Ctrl-C again ends it at once without one"),
            "{int}"
        );
    }
}

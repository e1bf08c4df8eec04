//! How far a run has come, as it goes: on a terminal a progress bar, otherwise log lines. Every
//! loop reports through it: Metropolis sweeps, vector spins, population annealing.

use std::cell::Cell;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

use crate::console::note;
use crate::io::run_dir::ProgressHook;

/// A progress bar on a terminal, plain log lines otherwise (at most one per 1% of the run, or
/// one per update where the sweeps in all are not known beforehand), both with the rate and the
/// time left; and the embedder's hook (after every update of a run of known length), if any.
pub(crate) struct Progress {
    bar: Option<indicatif::ProgressBar>,
    enabled: bool,
    /// Sweeps of the thermalisation, which come first.
    thermalize: u64,
    hook: Option<ProgressHook>,
    /// Sweeps in all; `None` where the run finds its end as it goes (an adaptive anneal).
    total: Option<u64>,
    /// Sweeps done when this invocation started: the rate counts only the sweeps since.
    first: u64,
    flips_per_sweep: u64,
    started: Instant,
    /// The percentage of the last log line, which the next one must pass.
    logged: Cell<Option<u64>>,
}

impl Progress {
    /// The progress of a run of `total` sweeps (`thermalize` of them first), `done` of them
    /// done before this invocation, each of `flips_per_sweep` spin updates; shown where
    /// `enabled`.
    pub(crate) fn new(
        enabled: bool,
        hook: Option<ProgressHook>,
        (thermalize, total): (u64, Option<u64>),
        done: u64,
        flips_per_sweep: u64,
    ) -> Self {
        let bar = (enabled && std::io::stderr().is_terminal()).then(|| {
            let Some(total) = total else {
                let spinner = indicatif::ProgressBar::new_spinner();
                spinner.set_style(
                    indicatif::ProgressStyle::with_template(
                        "{elapsed_precise} {spinner} {pos} sweeps, {msg}",
                    )
                    .expect("valid template"),
                );
                spinner.set_message("starting");
                spinner.set_position(done);
                return spinner;
            };
            let bar = indicatif::ProgressBar::new(total);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:40}] {pos}/{len} sweeps, {msg}",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            bar.set_message("starting");
            bar.set_position(done);
            bar
        });
        Progress {
            bar,
            enabled,
            thermalize,
            hook,
            total,
            first: done,
            flips_per_sweep,
            started: Instant::now(),
            logged: Cell::new(None),
        }
    }

    /// Report `done` sweeps: to the hook where the total is known, to the bar, and as a log line
    /// where it passes another percent.
    pub(crate) fn update(&self, done: u64) {
        if let (Some(ProgressHook(hook)), Some(total)) = (&self.hook, self.total) {
            hook(done, total);
        }
        let elapsed = self.started.elapsed();
        match &self.bar {
            Some(bar) => {
                bar.set_message(format!(
                    "{}, {:.3} flips/ns, {} left",
                    self.phase(done),
                    self.rate(done, elapsed),
                    self.time_left(done, elapsed)
                ));
                bar.set_position(done);
            }
            None if self.enabled && self.passes_a_percent(done) => {
                note!("{}", self.log_line(done, elapsed));
            }
            None => {}
        }
    }

    /// Whether `done` is at a whole percent beyond the last log line's (always where the total
    /// is unknown), noting it as logged.
    fn passes_a_percent(&self, done: u64) -> bool {
        let Some(total) = self.total else {
            return true;
        };
        let percent = Some(100 * done / total.max(1));
        let passes = percent > self.logged.get();
        if passes {
            self.logged.set(percent);
        }
        passes
    }

    /// Spin-flip attempts per nanosecond of this invocation so far (wall time).
    fn rate(&self, done: u64, elapsed: Duration) -> f64 {
        flips_per_ns((done - self.first) * self.flips_per_sweep, elapsed)
    }

    /// The line printed without a terminal.
    fn log_line(&self, done: u64, elapsed: Duration) -> String {
        let (seconds, rate) = (elapsed.as_secs_f64(), self.rate(done, elapsed));
        match self.total {
            Some(total) => format!(
                "spinflip: {done}/{total} sweeps ({:.0}%, {}), {seconds:.1} s, {rate:.3} \
                 flips/ns, {} left",
                100.0 * done as f64 / total as f64,
                self.phase(done),
                self.time_left(done, elapsed)
            ),
            None => format!(
                "spinflip: {done} sweeps ({}), {seconds:.1} s, {rate:.3} flips/ns",
                self.phase(done)
            ),
        }
    }

    /// What the sweeps up to `done` were doing.
    fn phase(&self, done: u64) -> &'static str {
        match done <= self.thermalize {
            true => "thermalising",
            false => "measuring",
        }
    }

    /// The time the remaining sweeps take at this invocation's pace so far, in words.
    fn time_left(&self, done: u64, elapsed: Duration) -> String {
        let Some(total) = self.total.filter(|_| done > self.first) else {
            return "unknown time".to_string();
        };
        let seconds = elapsed.as_secs_f64() * (total - done) as f64 / (done - self.first) as f64;
        match seconds {
            s if s < 120.0 => format!("about {s:.0} s"),
            s if s < 7200.0 => format!("about {:.0} min", s / 60.0),
            s => format!("about {:.1} h", s / 3600.0),
        }
    }

    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish();
        }
    }
}

/// Spin-flip attempts per nanosecond. A resumed run that was already complete ran no sweeps:
/// it reports no rate (0) rather than 0/0.
pub(crate) fn flips_per_ns(flips: u64, time: Duration) -> f64 {
    match flips {
        0 => 0.0,
        _ => flips as f64 / (time.as_secs_f64() * 1e9).max(f64::MIN_POSITIVE),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A resumed run (200 of 1000 sweeps done before) of 10^6 flips per sweep: 400 more sweeps
    /// in 2 s are 0.2 flips/ns, and the other 400 take 2 s more.
    #[test]
    fn progress_lines_show_the_rate_and_the_time_left() {
        let progress = Progress::new(false, None, (500, Some(1000)), 200, 1_000_000);
        let line = progress.log_line(600, Duration::from_secs(2));
        assert_eq!(
            line,
            "spinflip: 600/1000 sweeps (60%, measuring), 2.0 s, 0.200 flips/ns, about 2 s left"
        );
        let slow = progress.log_line(201, Duration::from_secs(100));
        assert!(slow.ends_with("about 22.2 h left"), "{slow}");
        let start = progress.log_line(200, Duration::ZERO);
        assert!(start.contains("(20%, thermalising)"), "{start}");
        assert!(
            start.ends_with("0.000 flips/ns, unknown time left"),
            "{start}"
        );
    }

    /// Log lines pass a whole percent each: chunks of a tenth of a percent print the first
    /// and then one line in ten; an unknown total (an adaptive anneal) prints every update,
    /// without a time left.
    #[test]
    fn log_lines_come_once_per_percent_and_without_a_total_at_every_update() {
        let progress = Progress::new(true, None, (0, Some(10_000)), 0, 1);
        let logged: Vec<u64> = (1..=300)
            .map(|chunk| chunk * 10)
            .filter(|&done| progress.passes_a_percent(done))
            .collect();
        let percents: Vec<u64> = (1..=30).map(|p| p * 100).collect();
        assert_eq!(logged, [&[10], percents.as_slice()].concat());
        let open = Progress::new(true, None, (0, None), 0, 1_000_000);
        assert!((1..=3).all(|done| open.passes_a_percent(done)));
        let line = open.log_line(400, Duration::from_secs(2));
        assert_eq!(
            line,
            "spinflip: 400 sweeps (measuring), 2.0 s, 0.200 flips/ns"
        );
    }
}

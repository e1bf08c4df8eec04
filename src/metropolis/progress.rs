//! How far a run has come, as it goes: on a terminal a progress bar, otherwise log lines.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use crate::io::run_dir::ProgressHook;

/// A progress bar on a terminal, plain log lines otherwise (one per chunk, about every 1% of
/// the run), both with the rate and the time left; and the embedder's hook, if any.
pub(super) struct Progress {
    bar: Option<indicatif::ProgressBar>,
    enabled: bool,
    /// Sweeps of the thermalisation, which come first.
    thermalize: u64,
    hook: Option<ProgressHook>,
    total: u64,
    /// Sweeps done when this invocation started: the rate counts only the sweeps since.
    first: u64,
    flips_per_sweep: u64,
    started: Instant,
}

impl Progress {
    pub(super) fn new(
        enabled: bool,
        hook: Option<ProgressHook>,
        (thermalize, total): (u64, u64),
        done: u64,
        flips_per_sweep: u64,
    ) -> Self {
        let bar = (enabled && std::io::stderr().is_terminal()).then(|| {
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
        }
    }

    pub(super) fn update(&self, done: u64) {
        if let Some(ProgressHook(hook)) = &self.hook {
            hook(done, self.total);
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
            None if self.enabled => eprintln!("{}", self.log_line(done, elapsed)),
            None => {}
        }
    }

    /// Spin-flip attempts per nanosecond of this invocation so far (wall time).
    fn rate(&self, done: u64, elapsed: Duration) -> f64 {
        flips_per_ns((done - self.first) * self.flips_per_sweep, elapsed)
    }

    /// The line printed without a terminal.
    fn log_line(&self, done: u64, elapsed: Duration) -> String {
        format!(
            "spinflip: {done}/{} sweeps ({:.0}%, {}), {:.1} s, {:.3} flips/ns, {} left",
            self.total,
            100.0 * done as f64 / self.total as f64,
            self.phase(done),
            elapsed.as_secs_f64(),
            self.rate(done, elapsed),
            self.time_left(done, elapsed)
        )
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
        if done <= self.first {
            return "unknown time".to_string();
        }
        let seconds =
            elapsed.as_secs_f64() * (self.total - done) as f64 / (done - self.first) as f64;
        match seconds {
            s if s < 120.0 => format!("about {s:.0} s"),
            s if s < 7200.0 => format!("about {:.0} min", s / 60.0),
            s => format!("about {:.1} h", s / 3600.0),
        }
    }

    pub(super) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish();
        }
    }
}

/// Spin-flip attempts per nanosecond. A resumed run that was already complete ran no sweeps:
/// it reports no rate (0) rather than 0/0.
pub(super) fn flips_per_ns(flips: u64, time: Duration) -> f64 {
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
        let progress = Progress::new(false, None, (500, 1000), 200, 1_000_000);
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
}

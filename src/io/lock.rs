//! One run per output directory: a run holds `spinflip.lock` in its `--out` while it goes, and
//! a second run into the same directory is refused with the process that holds it. The lock
//! names its process (PID, host, and on Linux the process's start time, so a recycled PID is
//! not taken for the run); a lock whose process has ended on this host (a killed run) is taken
//! over with a log line. A lock of another host cannot be checked and is never taken over.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::io::provenance::host_name;

/// The lock's file name in the output directory.
pub const LOCK: &str = "spinflip.lock";

/// The lock of an output directory, held until dropped (the file is then removed).
#[derive(Debug)]
pub struct RunLock {
    path: PathBuf,
}

/// The process a lock names.
#[derive(Debug, Clone, PartialEq)]
struct Holder {
    pid: u32,
    host: String,
    /// The process's start time (clock ticks after boot, `/proc/PID/stat`), where known.
    started: Option<u64>,
}

impl RunLock {
    /// Take the lock of `out` (an existing directory) for this process, refusing while another
    /// live process holds it, taking it over from one that has ended.
    pub fn acquire(out: &Path) -> Result<RunLock> {
        let path = out.join(LOCK);
        let me = Holder::this_process();
        // One takeover at most: a lock that reappears after it belongs to a run just started.
        for _ in 0..2 {
            if create_lock(&path, &me).map_err(|e| Error::io(&path, e))? {
                crate::stop::remove_at_abrupt_end(&path);
                return Ok(RunLock { path });
            }
            let holder = match std::fs::read(&path) {
                // Bytes that are not text name no process, as an empty lock does: unreadable.
                Ok(bytes) => std::str::from_utf8(&bytes).ok().and_then(Holder::parse),
                // Released between the two calls: try again.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(Error::io(&path, e)),
            };
            match holder {
                Some(holder) if !holder.has_ended() => {
                    return Err(Error::Usage(refusal(out, &path, &holder)));
                }
                _ => take_over(&path, holder.as_ref())?,
            }
        }
        Err(Error::Usage(format!(
            "{} was taken by another run while its stale lock was replaced; see {}",
            out.display(),
            path.display()
        )))
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        // A lock left behind is taken over by the next run on this host: nothing to report.
        crate::stop::keep_at_abrupt_end(&self.path);
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Create the lock at `path` naming `me`, whole or not at all: written under a name of this
/// process's own and hard-linked into place, which fails where a lock exists. Whether it was
/// created.
fn create_lock(path: &Path, me: &Holder) -> std::io::Result<bool> {
    let temp = path.with_extension(format!("lock.{}", me.pid));
    let mut file = std::fs::File::create(&temp)?;
    let linked = file
        .write_all(me.text().as_bytes())
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::hard_link(&temp, path));
    let _ = std::fs::remove_file(&temp);
    match linked {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e),
    }
}

/// Remove the stale lock at `path` of a process that has ended (or an unreadable one).
fn take_over(path: &Path, holder: Option<&Holder>) -> Result<()> {
    match holder {
        Some(h) => log::warn!(
            "taking over the stale lock {} of spinflip process {} on {}, which has ended",
            path.display(),
            h.pid,
            h.host
        ),
        None => log::warn!("taking over the unreadable lock {}", path.display()),
    }
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(path, e)),
        _ => Ok(()),
    }
}

/// Why a run may not use `out`.
fn refusal(out: &Path, path: &Path, holder: &Holder) -> String {
    let here = holder.host == host_name();
    let how = match here {
        true => "stop that run first, or give this one another --out",
        false => {
            "its host cannot be checked from here: give this run another --out, or, where that \
             run has ended, remove the lock"
        }
    };
    format!(
        "{} is in use by spinflip process {} on {} (lock {}): {how}",
        out.display(),
        holder.pid,
        holder.host,
        path.display()
    )
}

impl Holder {
    fn this_process() -> Holder {
        let pid = std::process::id();
        Holder {
            pid,
            host: host_name(),
            started: process_start(pid),
        }
    }

    /// The lock file's text: `pid`, `host` and `started` lines.
    fn text(&self) -> String {
        let mut text = format!("pid {}\nhost {}\n", self.pid, self.host);
        if let Some(started) = self.started {
            text += &format!("started {started}\n");
        }
        text
    }

    fn parse(text: &str) -> Option<Holder> {
        let field = |name: &str| {
            text.lines()
                .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
        };
        Some(Holder {
            pid: field("pid")?.parse().ok()?,
            host: field("host")?.to_string(),
            started: field("started").and_then(|s| s.parse().ok()),
        })
    }

    /// Whether the process is known to have ended: on this host, no process of its PID runs,
    /// or one started at another time does. A process of another host may run for all we know.
    fn has_ended(&self) -> bool {
        if self.host != host_name() || !cfg!(target_os = "linux") {
            return false;
        }
        match process_start(self.pid) {
            None => true,
            Some(started) => self.started.is_some_and(|s| s != started),
        }
    }
}

/// When process `pid` started (field 22 of `/proc/PID/stat`, clock ticks after boot), or `None`
/// where it does not run (or there is no `/proc`).
fn process_start(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name, which is in parentheses and may hold spaces.
    let after_name = stat.rsplit_once(')')?.1;
    after_name.split_whitespace().nth(19)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_with_its_holder_and_released_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let lock = RunLock::acquire(dir.path()).unwrap();
        let error = RunLock::acquire(dir.path()).unwrap_err().to_string();
        let expected = format!(
            "is in use by spinflip process {} on {}",
            std::process::id(),
            host_name()
        );
        assert!(error.contains(&expected), "{error}");
        assert!(error.contains("spinflip.lock"), "{error}");
        drop(lock);
        assert!(!dir.path().join(LOCK).exists());
        let again = RunLock::acquire(dir.path()).unwrap();
        let text = std::fs::read_to_string(dir.path().join(LOCK)).unwrap();
        assert_eq!(Holder::parse(&text), Some(Holder::this_process()));
        drop(again);
    }

    /// The PID of a process that has ended.
    fn ended_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn stale_locks_are_taken_over_and_others_hosts_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOCK);
        let host = host_name();
        let me = Holder::this_process();
        let stale = [
            format!("pid {}\nhost {host}\n", ended_pid()),
            // This PID, recycled: another start time.
            format!("pid {}\nhost {host}\nstarted 1\n", me.pid),
            "garbage".to_string(),
        ];
        // Unreadable: empty, or bytes that are not UTF-8.
        let unreadable: [&[u8]; 2] = [b"", b"pid \xff\xfe\nhost \x80\n"];
        let stale = stale.iter().map(String::as_bytes).chain(unreadable);
        for text in stale {
            std::fs::write(&path, text).unwrap();
            let shown = String::from_utf8_lossy(text);
            let lock = RunLock::acquire(dir.path()).unwrap_or_else(|e| panic!("{shown}: {e}"));
            let now = std::fs::read_to_string(&path).unwrap();
            assert_eq!(Holder::parse(&now), Some(me.clone()), "{shown}");
            drop(lock);
        }
        std::fs::write(
            &path,
            format!("pid {}\nhost elsewhere-{host}\n", ended_pid()),
        )
        .unwrap();
        let error = RunLock::acquire(dir.path()).unwrap_err().to_string();
        assert!(
            error.contains(&format!("on elsewhere-{host}")) && error.contains("remove the lock"),
            "{error}"
        );
        assert!(path.exists(), "another host's lock stays");
    }
}

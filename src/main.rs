//! The `spinflip` command.

use clap::Parser;

fn main() -> std::process::ExitCode {
    spinflip::stop::note_process_start();
    // SAFETY: the first thing `main` does, while the process has a single thread: nothing can
    // read the environment at the same time.
    #[allow(
        unsafe_code,
        reason = "setting a variable of the process's own environment"
    )]
    let _runtime_dir = unsafe { spinflip::runtime_dir::set_private_unless_set() };
    env_logger::Builder::from_env(
        env_logger::Env::default().default_filter_or("warn,wgpu_hal::gles=off"),
    )
    .init();
    let cli = spinflip::cli::Cli::parse();
    // Before MPI starts: every rank of a job must outlive a signal sent to all of them.
    if matches!(cli.command, spinflip::cli::Command::Run { .. })
        && let Err(error) = spinflip::stop::install_handlers()
    {
        spinflip::console::note_line(format_args!(
            "spinflip: error: cannot handle the stop signals: {error}"
        ));
        return std::process::ExitCode::FAILURE;
    }
    #[cfg(feature = "mpi")]
    return ranked(cli);
    #[cfg(not(feature = "mpi"))]
    exit_code(spinflip::cli::execute(cli))
}

/// The process's exit status (0, or 75 for a run stopped to be resumed), with the error named
/// on standard error.
fn exit_code(result: spinflip::Result<u8>) -> std::process::ExitCode {
    match result {
        Ok(status) => std::process::ExitCode::from(status),
        Err(error) => {
            spinflip::console::note_line(format_args!("spinflip: error: {error}"));
            std::process::ExitCode::FAILURE
        }
    }
}

/// Under `mpirun` with several ranks: rank 0 runs the command, its engines spanning every rank
/// ([`spinflip::mpi`]), and tells the others how it ended; they serve its engine calls.
#[cfg(feature = "mpi")]
fn ranked(cli: spinflip::cli::Cli) -> std::process::ExitCode {
    use spinflip::mpi::world::{Session, follow};
    let session = match Session::start() {
        Ok(Some(session)) => session,
        Ok(None) => return exit_code(spinflip::cli::execute(cli)),
        Err(error) => return exit_code(Err(error)),
    };
    if session.placement.rank != 0 {
        return std::process::ExitCode::from(follow(session.placement));
    }
    let result = spinflip::cli::execute(cli);
    // The other ranks end with rank 0's status: 75 after a stop, so a job script sees it from
    // any of them.
    session.finish(*result.as_ref().unwrap_or(&1));
    exit_code(result)
}

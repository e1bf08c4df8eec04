//! The `spinflip` command.

use clap::Parser;

fn main() -> std::process::ExitCode {
    env_logger::Builder::from_env(
        env_logger::Env::default().default_filter_or("warn,wgpu_hal::gles=off"),
    )
    .init();
    let cli = spinflip::cli::Cli::parse();
    match spinflip::cli::execute(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("spinflip: error: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

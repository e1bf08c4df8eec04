//! `cargo bench`: the sweep throughput table of `spinflip bench` (flips/ns and ps/flip per
//! backend, engine, layout and size) for 2D and 3D Ising lattices and the 3D spin glass. Arguments after `--` are passed to `spinflip bench`,
//! e.g. `cargo bench -- --backend wgpu --sizes 4096,16384`.

use clap::Parser;
use spinflip::bench::{BenchEngine, BenchModel, BenchOptions, RandomsArg, bench};

#[derive(Parser)]
struct Args {
    #[command(flatten)]
    options: BenchOptions,
    /// Cargo passes `--bench`; accepted and ignored.
    #[arg(long = "bench", hide = true)]
    _bench: bool,
}

fn main() -> spinflip::Result<()> {
    let args = Args::parse();
    bench(&args.options)?;
    if args.options.sizes == BenchOptions::parse_from(["bench"]).sizes {
        let three_d = BenchOptions {
            dims: 3,
            sizes: vec![16, 64, 128],
            ..args.options.clone()
        };
        bench(&three_d)?;
        // The 3D Edwards-Anderson spin glass, 32 samples per word, both random-number modes.
        for randoms in [RandomsArg::Exact, RandomsArg::Shared] {
            bench(&BenchOptions {
                engine: vec![BenchEngine::Amsc],
                model: BenchModel::Ea,
                randoms,
                ..three_d.clone()
            })?;
        }
    }
    Ok(())
}

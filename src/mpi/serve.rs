//! One engine call on this rank's engine: the other ranks' side of every [`Command`] but the
//! opening and closing ones (which `world::follow` handles), and rank 0's own share's, so that
//! every rank replays a call alike.

use super::wire::{Command, Reply};
use crate::engine::{
    Engine, exchanges_of, populations_of, proposals_of, tempering_of, tempering_state_of,
};
use crate::error::Result;

/// One engine call on this rank's engine (rank 0's own share's too).
pub(super) fn serve(engine: &mut dyn Engine, command: &Command) -> Result<Reply> {
    Ok(match command {
        Command::HotStart => {
            engine.hot_start()?;
            Reply::Done
        }
        Command::SetSpins(spins) => {
            engine.set_spins(spins)?;
            Reply::Done
        }
        Command::Spins => Reply::Spins(engine.spins()?),
        Command::Execute(plan) => Reply::Measurements(Box::new(engine.execute(plan)?)),
        Command::SetTempering(state) => {
            tempering_of(engine)?.set_tempering(state)?;
            Reply::Done
        }
        Command::Tempering => Reply::Tempering(tempering_state_of(engine)?),
        Command::SetBetas(betas) => {
            populations_of(engine)?.set_betas(betas)?;
            Reply::Done
        }
        Command::CopySystems(sources) => {
            populations_of(engine)?.copy_systems(sources)?;
            Reply::Done
        }
        Command::SetResampling(table) => {
            populations_of(engine)?.set_resampling(table)?;
            Reply::Done
        }
        Command::SetWidths(widths) => {
            proposals_of(engine)?.set_widths(widths)?;
            Reply::Done
        }
        Command::Exchange(partners) => {
            exchanges_of(engine)?.exchange(partners)?;
            Reply::Done
        }
        Command::CountPopulations { slots, sizes } => {
            Reply::Counting(populations_of(engine)?.count_populations(*slots, sizes)?)
        }
        Command::Open { .. } | Command::OpenVector { .. } | Command::Close | Command::Finish(_) => {
            unreachable!("handled by follow")
        }
    })
}

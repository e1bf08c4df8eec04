//! A kernel's module specialised to its pipeline's constants before the driver sees it.
//!
//! The kernels select their paths with override constants (`if PACK_ROTATIONS != 0u`, `if
//! DISORDERED`, `if WORD_RUN > 1u`...), and wgpu hands a driver the whole module with the
//! overrides replaced by constants: the branches that they rule out stay in the SPIR-V, and a
//! driver inlines and optimises them before it finds them dead. On Mesa's lavapipe (the tests'
//! adapter without a GPU) the multispin update's unused packed and tally paths made four fifths
//! of its 3 s pipeline build. Here the overrides become constants as wgpu's backends make them
//! (naga's `process_overrides`), every `if` whose condition is then a constant keeps only the
//! branch it takes, the statements after one that returns go, and naga's compaction drops the
//! functions no longer called: the driver receives only the code the constants select. Only
//! kernels with the engines' binding layouts are pruned: a pipeline laid out from its own module
//! binds the buffers that its entry point uses, and pruning can leave one unused.

use naga::{Block, Expression, Handle, Literal, Statement};

use crate::error::{Error, Result};

/// `module` (validated, with `info`) with the overrides of entry point `main` set to
/// `constants`, as wgpu's backends set them; unreachable items are compacted away.
pub fn set_constants(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    constants: &[(&str, f64)],
) -> Result<naga::Module> {
    let mut values = naga::back::PipelineConstants::default();
    for &(name, value) in constants {
        values.insert(name.to_string(), value);
    }
    let entry = Some((naga::ShaderStage::Compute, "main"));
    let (module, _) =
        naga::back::pipeline_constants::process_overrides(module, info, entry, &values)
            .map_err(|e| Error::Gpu(format!("pipeline constants: {e}")))?;
    Ok(module.into_owned())
}

/// Remove from `module` (its overrides set) the code that its constants rule out: each `if`
/// whose condition is a constant becomes the branch it takes, the statements after one that
/// returns go, and compaction drops the functions no longer called. A global that only the
/// removed code named is no longer used by the entry point.
pub fn prune_constant_branches(module: &mut naga::Module) {
    let (constants, globals) = (&module.constants, &module.global_expressions);
    let constant_bool =
        |expressions: &naga::Arena<Expression>, h: Handle<Expression>| match expressions[h] {
            Expression::Literal(Literal::Bool(b)) => Some(b),
            Expression::Constant(c) => match globals[constants[c].init] {
                Expression::Literal(Literal::Bool(b)) => Some(b),
                _ => None,
            },
            _ => None,
        };
    let functions = module.functions.iter_mut().map(|(_, function)| function);
    for function in functions.chain(module.entry_points.iter_mut().map(|e| &mut e.function)) {
        let expressions = &function.expressions;
        prune(&mut function.body, &|h| constant_bool(expressions, h));
        // Compaction keeps named expressions alive, those of removed code too (a call's result
        // whose function is gone): the names are only the SPIR-V's debug names.
        function.named_expressions.clear();
    }
    naga::compact::compact(module, naga::compact::KeepUnused::No);
}

/// Replace each `if` of `block` (and of the blocks within it) whose condition `constant` knows
/// with the branch it takes, and drop what follows a statement that leaves the block; true where
/// the block always leaves (returns, breaks, continues or kills).
fn prune(block: &mut Block, constant: &impl Fn(Handle<Expression>) -> Option<bool>) -> bool {
    let statements = std::mem::take(block);
    let mut leaves = false;
    for (mut statement, span) in statements.span_into_iter() {
        if let Statement::If {
            condition,
            accept,
            reject,
        } = &mut statement
        {
            if let Some(taken) = constant(*condition) {
                statement = Statement::Block(std::mem::take(if taken { accept } else { reject }));
            }
        }
        leaves = match &mut statement {
            Statement::Block(inner) => prune(inner, constant),
            Statement::If { accept, reject, .. } => {
                let accept_leaves = prune(accept, constant);
                prune(reject, constant) && accept_leaves
            }
            Statement::Switch { cases, .. } => {
                for case in cases.iter_mut() {
                    prune(&mut case.body, constant);
                }
                false
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                prune(body, constant);
                prune(continuing, constant);
                false
            }
            Statement::Return { .. } | Statement::Kill | Statement::Break | Statement::Continue => {
                true
            }
            _ => false,
        };
        block.push(statement, span);
        if leaves {
            break;
        }
    }
    leaves
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::kernels::{Kernel, WordLayout};
    use crate::engine::wgpu::shaders::{MulhiloPath, compose, validate};

    /// The multispin update with the given packed-draw rotations and tally runs, specialised.
    fn multispin(pack_rotations: f64, tally_runs: f64) -> naga::Module {
        let source = compose(
            Kernel::MultispinMetropolis(WordLayout::Amsc),
            MulhiloPath::U32,
        )
        .unwrap();
        let (module, info) = validate(&source, MulhiloPath::U32).unwrap();
        // A 2D ferromagnet of L = 64 in workgroups of 64; the other overrides without a default 0.
        let chosen = [
            ("WG_SIZE", 64.0),
            ("L", 64.0),
            ("DIMS", 2.0),
            ("REPLICA_WORDS", 1.0),
            ("SAMPLE_WORDS", 1.0),
            ("WORDS_PER_TABLE", 1.0),
            ("CLASS_COUNT", 5.0),
            ("WORD_RUN", 4.0),
            ("LINE_RUN", 1.0),
            ("PLANES", 64.0),
            ("STORED_PLANES", 64.0),
            ("SLICE_BLOCK", 1.0),
            ("RUN_BLOCK", 1.0),
            ("PACK_ROTATIONS", pack_rotations),
            ("TALLY_RUNS", tally_runs),
        ];
        // Each override chosen above, or declared without a default, gets a value.
        let constants: Vec<(&str, f64)> = (module.overrides.iter())
            .filter_map(|(_, o)| Some((o.name.as_deref()?, o.init.is_none())))
            .filter_map(|(name, required)| {
                let chosen = chosen.iter().find(|(k, _)| *k == name).map(|c| c.1);
                chosen
                    .or(required.then_some(0.0))
                    .map(|value| (name, value))
            })
            .collect();
        let mut specialized = set_constants(&module, &info, &constants).unwrap();
        prune_constant_branches(&mut specialized);
        let flags = naga::valid::ValidationFlags::all();
        naga::valid::Validator::new(flags, naga::valid::Capabilities::default())
            .validate(&specialized)
            .unwrap();
        specialized
    }

    fn has_function(module: &naga::Module, name: &str) -> bool {
        module
            .functions
            .iter()
            .any(|(_, f)| f.name.as_deref() == Some(name))
    }

    #[test]
    fn constants_keep_only_the_paths_they_select() {
        let exact = multispin(0.0, 0.0);
        assert!(!has_function(&exact, "update_packed_run"));
        assert!(!has_function(&exact, "add_workgroup_tally"));
        assert!(has_function(&exact, "update_word"));
        let packed = multispin(4.0, 2.0);
        assert!(has_function(&packed, "update_packed_run"));
        assert!(has_function(&packed, "add_workgroup_tally"));
    }

    #[test]
    fn an_unknown_constant_is_refused() {
        let source = compose(Kernel::PhiloxKat, MulhiloPath::U32).unwrap();
        let (module, info) = validate(&source, MulhiloPath::U32).unwrap();
        assert!(set_constants(&module, &info, &[("NO_SUCH_CONSTANT", 1.0)]).is_err());
    }

    #[test]
    fn statements_after_a_return_are_dropped() {
        let mut block = Block::new();
        block.push(Statement::Return { value: None }, naga::Span::UNDEFINED);
        block.push(Statement::Kill, naga::Span::UNDEFINED);
        assert!(prune(&mut block, &|_| None));
        assert_eq!(block.len(), 1);
    }
}

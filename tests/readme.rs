//! The README works as written: every RON example parses and validates, every `spinflip`
//! command in its shell blocks names a subcommand and flags that exist (checked against
//! `spinflip <subcommand> --help` of the built binary), and the examples that take seconds run
//! to the end (the others, minutes each, are left to be run by hand).

use std::collections::BTreeMap;
use std::process::Command;

use spinflip::config::Config;
use spinflip::io::run_dir::RunOptions;
use spinflip::run::RunOutcome;

const README: &str = include_str!("../README.md");

/// The bodies of the README's fenced blocks of `language`.
fn blocks(language: &str) -> Vec<String> {
    let fence = format!("```{language}");
    let mut found = Vec::new();
    let mut current: Option<String> = None;
    for line in README.lines() {
        let trimmed = line.trim_start();
        match &mut current {
            None if trimmed == fence => current = Some(String::new()),
            Some(body) if trimmed == "```" => {
                found.push(std::mem::take(body));
                current = None;
            }
            Some(body) => {
                body.push_str(line);
                body.push('\n');
            }
            None => {}
        }
    }
    found
}

/// The shell commands of a block: continuation lines joined, comments cut.
fn commands(block: &str) -> Vec<String> {
    let joined = block.replace("\\\n", " ");
    joined
        .lines()
        .map(|line| {
            line.split(" #")
                .next()
                .unwrap_or_default()
                .trim()
                .to_string()
        })
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect()
}

/// Of a command line, the subcommand and `--flags` given to `spinflip` (the binary by name or
/// by path), if it runs spinflip.
fn spinflip_call(command: &str) -> Option<(String, Vec<String>)> {
    let words: Vec<&str> = command.split_whitespace().collect();
    let at = words
        .iter()
        .position(|w| *w == "spinflip" || w.ends_with("/spinflip"))?;
    let subcommand = words.get(at + 1)?.to_string();
    let flags = words[at + 2..]
        .iter()
        .take_while(|w| !matches!(**w, ";" | "|" | ">" | "&&"))
        .filter(|w| w.starts_with("--"))
        .map(|w| {
            w.split('=')
                .next()
                .unwrap_or(w)
                .trim_end_matches(';')
                .to_string()
        })
        .collect();
    Some((subcommand, flags))
}

fn help(subcommand: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_spinflip"))
        .args([subcommand, "--help"])
        .output()
        .expect("spinflip runs");
    assert!(
        output.status.success(),
        "README names `spinflip {subcommand}`, which does not exist: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn every_ron_example_parses_and_validates() {
    let examples = blocks("ron");
    assert!(examples.len() >= 4, "the README's configs");
    for example in examples {
        let config = Config::from_ron_str(&example)
            .unwrap_or_else(|e| panic!("README example does not parse: {e}\n{example}"));
        config
            .validate()
            .unwrap_or_else(|e| panic!("README example is refused: {e}\n{example}"));
    }
}

#[test]
fn every_spinflip_command_names_existing_subcommands_and_flags() {
    let mut calls: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for block in blocks("sh") {
        for command in commands(&block) {
            if let Some((subcommand, flags)) = spinflip_call(&command) {
                calls.entry(subcommand).or_default().extend(flags);
            }
        }
    }
    for needed in ["run", "plot"] {
        assert!(
            calls.contains_key(needed),
            "the README shows `spinflip {needed}`"
        );
    }
    for (subcommand, flags) in calls {
        let help = help(&subcommand);
        for flag in flags {
            assert!(
                help.contains(&flag),
                "README: `spinflip {subcommand} {flag}` is not in its --help"
            );
        }
    }
}

#[test]
fn the_set_up_keeps_its_two_commands_and_starts_from_the_default_config() {
    let commands: Vec<String> = blocks("sh").iter().flat_map(|b| commands(b)).collect();
    for needed in [
        "cargo run --release -- run",
        "cargo test",
        "cargo install --locked --path .",
        "spinflip run --print-default > my.ron",
    ] {
        assert!(
            commands.iter().any(|c| c == needed),
            "README lacks `{needed}`"
        );
    }
    let install = commands
        .iter()
        .position(|c| c == "cargo install --locked --path .");
    let first_bare = commands.iter().position(|c| c.starts_with("spinflip "));
    assert!(
        install < first_bare,
        "`spinflip` is installed before it is used"
    );
}

/// The example configs in `assets/examples/`, by the path the README names them with.
fn example_configs() -> BTreeMap<String, Config> {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples");
    let mut configs = BTreeMap::new();
    for entry in std::fs::read_dir(&folder).expect("assets/examples") {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let config =
            Config::from_ron_str(&text).unwrap_or_else(|e| panic!("{name} does not parse: {e}"));
        config
            .validate()
            .unwrap_or_else(|e| panic!("{name} is refused: {e}"));
        configs.insert(format!("assets/examples/{name}"), config);
    }
    configs
}

/// Every `assets/examples/<file>` the README names.
fn named_examples() -> Vec<&'static str> {
    README
        .match_indices("assets/examples/")
        .map(|(at, _)| {
            let rest = &README[at..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || "/_.".contains(c)))
                .unwrap_or(rest.len());
            rest[..end].trim_end_matches('.')
        })
        .collect()
}

#[test]
fn every_example_config_validates_and_the_readme_shows_it_as_it_is() {
    let configs = example_configs();
    for path in named_examples() {
        assert!(
            configs.contains_key(path),
            "README names {path}, not a file"
        );
    }
    // "This is `assets/examples/<file>`" after a config block says the block is that file.
    let ron = blocks("ron");
    let mut blocks_before = 0;
    for line in README.lines() {
        if line.trim_start() == "```ron" {
            blocks_before += 1;
        }
        let Some(rest) = line.strip_prefix("This is `assets/examples/") else {
            continue;
        };
        let path = format!("assets/examples/{}", rest.split('`').next().unwrap());
        assert!(blocks_before > 0, "README: {path} follows no config");
        let shown = Config::from_ron_str(&ron[blocks_before - 1]).unwrap();
        assert_eq!(
            configs.get(&path),
            Some(&shown),
            "README's block before {path}"
        );
    }
}

/// The examples in `assets/examples/` small enough to run in every `cargo test` (seconds each).
const RUN_IN_TESTS: [&str; 2] = [
    "assets/examples/heisenberg_glass.ron",
    "assets/examples/heisenberg_gaussian_glass.ron",
];

#[test]
fn the_smallest_examples_run_as_written() {
    let configs = example_configs();
    for path in RUN_IN_TESTS {
        let out = tempfile::tempdir().unwrap();
        let outcome = spinflip::run::run(&configs[path], &RunOptions::new(out.path()))
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        assert!(
            matches!(outcome, RunOutcome::Vector(_)),
            "{path}: {outcome:?}"
        );
        assert!(out.path().join("summary.json").exists(), "{path}");
    }
}

//! The README works as written: every RON example parses and validates, and every `spinflip`
//! command in its shell blocks names a subcommand and flags that exist (checked against
//! `spinflip <subcommand> --help` of the built binary). Seconds, no simulation.

use std::collections::BTreeMap;
use std::process::Command;

use spinflip::config::Config;

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
        "cargo install --path .",
        "spinflip run --print-default > my.ron",
    ] {
        assert!(
            commands.iter().any(|c| c == needed),
            "README lacks `{needed}`"
        );
    }
    let install = commands.iter().position(|c| c == "cargo install --path .");
    let first_bare = commands.iter().position(|c| c.starts_with("spinflip "));
    assert!(
        install < first_bare,
        "`spinflip` is installed before it is used"
    );
}

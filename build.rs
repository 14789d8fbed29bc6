//! The operator actions' command words and the integration tests: every file of
//! `src/cli/actions/` is a module of `cli` with its `COMMANDS` in `cli::action_commands`, and
//! every file of `tests/integration/` a module of that test binary (see `build/registry.rs`).
#[path = "build/registry.rs"]
mod registry;

fn main() -> std::io::Result<()> {
    registry::generate(
        "src/cli/actions",
        &[],
        "pub ",
        Some(("FILES", "&[action::ActionCommand]", "COMMANDS")),
        "cli_actions.rs",
    )?;
    registry::generate(
        "tests/integration",
        &["main"],
        "",
        None,
        "integration_tests.rs",
    )
}

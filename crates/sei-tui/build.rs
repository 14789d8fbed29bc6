//! The console's registered actions: every file of `src/app/console_actions/` is a module of
//! `app::console_actions` and its `ACTIONS` an entry of its table (see `build/registry.rs`).
#[path = "../../build/registry.rs"]
mod registry;

fn main() -> std::io::Result<()> {
    registry::generate(
        "src/app/console_actions",
        &[],
        "",
        Some(("FILES", "&[ConsoleAction]", "ACTIONS")),
        "console_actions.rs",
    )
}

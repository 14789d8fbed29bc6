//! The operator actions: every file of `src/ops/actions/` is a module of `ops` and its `KINDS`
//! are in `ops::actions()` (see `build/registry.rs`).
#[path = "../../build/registry.rs"]
mod registry;

fn main() -> std::io::Result<()> {
    registry::generate(
        "src/ops/actions",
        &[],
        "pub ",
        Some(("FILES", "(u8, &[ActionKind])", "KINDS")),
        "ops_actions.rs",
    )
}

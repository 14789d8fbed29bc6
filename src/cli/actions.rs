//! The operator actions' commands, one module per file of `cli/actions/`: each file's flags
//! (`#[derive(Args)]`) and `run`, a variant of [`super::Command`] each. A test fails when a
//! file of the folder is not a subcommand.
pub mod address;
pub mod exec;
pub mod pause;
pub mod restart;
pub mod rollout;
pub mod seed;

#[cfg(test)]
mod tests {
    /// Every file of `cli/actions/` is a subcommand of its name (`pause.rs`: `pause`).
    #[test]
    fn every_file_of_the_folder_is_a_subcommand() {
        let command = crate::cli::command();
        let names: Vec<&str> = command
            .get_subcommands()
            .map(|sub| sub.get_name())
            .collect();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli/actions");
        for entry in std::fs::read_dir(&dir).expect("the folder") {
            let path = entry.expect("an entry").path();
            if path.extension().is_none_or(|ext| ext != "rs") {
                continue;
            }
            let stem = path.file_stem().and_then(|s| s.to_str()).expect("a name");
            assert!(
                names.contains(&stem),
                "{}: not a subcommand of cli::Command ({names:?})",
                path.display()
            );
        }
    }
}

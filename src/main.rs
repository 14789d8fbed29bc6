//! `sei-console` binary: parse the command line, dispatch, turn errors into one clear line.
fn main() -> std::process::ExitCode {
    sei_console::cli::main()
}

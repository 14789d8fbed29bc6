//! `sei-console` binary: parse the command line, dispatch, turn errors into one clear line.

/// mimalloc rather than the system allocator: the console keeps a large, long-lived heap (one
/// store entry and row per SeiNode) and allocates small strings for every frame and watch delta;
/// glibc's malloc, fragmented by that heap, made those small allocations the bulk of the frame
/// and delta time (`cargo bench --bench console`, BENCHMARKS.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    sei_console::cli::main()
}

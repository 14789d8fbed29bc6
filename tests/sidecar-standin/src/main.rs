//! `sidecar-standin`: serve the stand-in sidecar API for one node home until SIGTERM/SIGINT.
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use sidecar_standin::{Options, Standin};

/// Stand-in for `seictl serve` (tests and the local demo only).
#[derive(Debug, Parser)]
#[command(name = "sidecar-standin", version)]
struct Args {
    /// Node home (like SEI_HOME); `config/config.toml` is created there if absent.
    #[arg(long, value_name = "DIR")]
    home: PathBuf,
    /// Loopback address to listen on; port 0 picks a free port.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7777")]
    listen: SocketAddr,
    /// Write the bound port to this file once listening (atomically).
    #[arg(long, value_name = "FILE")]
    port_file: Option<PathBuf>,
    /// Require one X-Remote-User header, as with SEI_SIDECAR_AUTHN_MODE=trusted-header.
    #[arg(long)]
    trusted_header: bool,
    /// The chain ID the real sidecar reads from SEI_CHAIN_ID.
    #[arg(long, env = "SEI_CHAIN_ID", default_value = "arctic-1")]
    chain_id: String,
    /// Keep tasks of this type running until deleted (test hook; repeatable).
    #[arg(long = "hold", value_name = "TYPE")]
    hold_types: Vec<String>,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let options = Options {
        home: args.home,
        trusted_header: args.trusted_header,
        chain_id: args.chain_id,
        hold_types: args.hold_types,
    };
    let standin = match Standin::start(args.listen, options).await {
        Ok(standin) => standin,
        Err(err) => {
            eprintln!("sidecar-standin: {err}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(file) = args.port_file {
        let temporary = file.with_extension("tmp");
        let written = std::fs::write(&temporary, format!("{}\n", standin.addr.port()))
            .and_then(|()| std::fs::rename(&temporary, &file));
        if let Err(err) = written {
            eprintln!("sidecar-standin: writing {}: {err}", file.display());
            return ExitCode::FAILURE;
        }
    }
    eprintln!("sidecar-standin: listening on {}", standin.addr);
    wait_for_signal().await;
    standin.stop().await;
    ExitCode::SUCCESS
}

async fn wait_for_signal() {
    let mut terminate =
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(signal) => signal,
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
                return;
            }
        };
    tokio::select! {
        _ = terminate.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}

//! The modelled part of sei-config's key registry: unified dotted key -> file, table, TOML name,
//! type, baseline default, hot-reloadable. Names come from sei-config `config.go` (unified keys)
//! and `legacy.go` (TOML names).
use super::config_model::{Field, File, Kind, Val};

fn s(text: &str) -> Val {
    Val::Str(text.to_owned())
}

fn list(items: &[&str]) -> Val {
    Val::List(items.iter().map(|item| (*item).to_owned()).collect())
}

const fn f(
    key: &'static str,
    file: File,
    table: &'static str,
    name: &'static str,
    kind: Kind,
    default: fn() -> Val,
) -> Field {
    Field {
        key,
        file,
        table,
        name,
        kind,
        default,
        hot_reload: false,
    }
}

const fn hot(field: Field) -> Field {
    Field {
        hot_reload: true,
        ..field
    }
}

use File::{App, Config};
use Kind::{Bool, CsvList, Duration, Int, List, Str};

/// The modelled registry, in the order the files are written.
#[rustfmt::skip]
pub(super) static FIELDS: &[Field] = &[
    f("chain.moniker", Config, "", "moniker", Str, || s("")),
    f("chain.proxy_app", Config, "", "proxy-app", Str, || s("tcp://127.0.0.1:26658")),
    hot(f("logging.level", Config, "", "log-level", Str, || s("info"))),
    f("logging.format", Config, "", "log-format", Str, || s("plain")),
    hot(f("network.rpc.listen_address", Config, "rpc", "laddr", Str, || s("tcp://127.0.0.1:26657"))),
    hot(f("network.rpc.cors_allowed_origins", Config, "rpc", "cors-allowed-origins", List, || list(&[]))),
    hot(f("network.rpc.max_open_connections", Config, "rpc", "max-open-connections", Int, || Val::Int(900))),
    hot(f("network.rpc.lag_threshold", Config, "rpc", "lag-threshold", Int, || Val::Int(0))),
    f("network.p2p.listen_address", Config, "p2p", "laddr", Str, || s("tcp://127.0.0.1:26656")),
    f("network.p2p.external_address", Config, "p2p", "external-address", Str, || s("")),
    hot(f("network.p2p.persistent_peers", Config, "p2p", "persistent-peers", Str, || s(""))),
    f("network.p2p.pex", Config, "p2p", "pex", Bool, || Val::Bool(true)),
    f("network.p2p.max_connections", Config, "p2p", "max-connections", Int, || Val::Int(100)),
    f("network.p2p.max_incoming_connection_attempts", Config, "p2p", "max-incoming-connection-attempts", Int, || Val::Int(100)),
    f("network.p2p.allow_duplicate_ip", Config, "p2p", "allow-duplicate-ip", Bool, || Val::Bool(false)),
    f("network.p2p.max_packet_msg_payload_size", Config, "p2p", "max-packet-msg-payload-size", Int, || Val::Int(1_000_000)),
    f("network.p2p.send_rate", Config, "p2p", "send-rate", Int, || Val::Int(5_120_000)),
    f("network.p2p.recv_rate", Config, "p2p", "recv-rate", Int, || Val::Int(5_120_000)),
    hot(f("mempool.size", Config, "mempool", "size", Int, || Val::Int(5000))),
    f("state_sync.enable", Config, "statesync", "enable", Bool, || Val::Bool(false)),
    f("state_sync.use_p2p", Config, "statesync", "use-p2p", Bool, || Val::Bool(false)),
    f("state_sync.rpc_servers", Config, "statesync", "rpc-servers", CsvList, || list(&[])),
    f("state_sync.trust_height", Config, "statesync", "trust-height", Int, || Val::Int(0)),
    f("state_sync.trust_hash", Config, "statesync", "trust-hash", Str, || s("")),
    f("state_sync.trust_period", Config, "statesync", "trust-period", Duration, || s("168h0m0s")),
    f("state_sync.backfill_blocks", Config, "statesync", "backfill-blocks", Int, || Val::Int(0)),
    f("state_sync.use_local_snapshot", Config, "statesync", "use-local-snapshot", Bool, || Val::Bool(false)),
    f("state_sync.fetchers", Config, "statesync", "fetchers", Int, || Val::Int(4)),
    f("tx_index.indexer", Config, "tx-index", "indexer", List, || list(&["kv"])),
    f("chain.min_gas_prices", App, "", "minimum-gas-prices", Str, || s("0.01usei")),
    f("storage.pruning", App, "", "pruning", Str, || s("nothing")),
    f("storage.pruning_keep_recent", App, "", "pruning-keep-recent", Str, || s("0")),
    f("storage.pruning_keep_every", App, "", "pruning-keep-every", Str, || s("0")),
    f("chain.min_retain_blocks", App, "", "min-retain-blocks", Int, || Val::Int(0)),
    f("api.rest.enable", App, "api", "enable", Bool, || Val::Bool(false)),
    f("api.grpc.enable", App, "grpc", "enable", Bool, || Val::Bool(true)),
    f("api.grpc_web.enable", App, "grpc-web", "enable", Bool, || Val::Bool(true)),
    f("storage.snapshot_interval", App, "state-sync", "snapshot-interval", Int, || Val::Int(0)),
    f("storage.snapshot_keep_recent", App, "state-sync", "snapshot-keep-recent", Int, || Val::Int(2)),
    f("storage.state_commit.enable", App, "state-commit", "sc-enable", Bool, || Val::Bool(true)),
    f("storage.state_commit.async_commit_buffer", App, "state-commit", "sc-async-commit-buffer", Int, || Val::Int(100)),
    f("storage.state_commit.memiavl.snapshot_keep_recent", App, "state-commit", "sc-keep-recent", Int, || Val::Int(1)),
    f("storage.state_commit.memiavl.snapshot_min_time_interval", App, "state-commit", "sc-snapshot-min-time-interval", Int, || Val::Int(3600)),
    f("storage.state_store.enable", App, "state-store", "ss-enable", Bool, || Val::Bool(true)),
    f("storage.state_store.backend", App, "state-store", "ss-backend", Str, || s("pebbledb")),
    f("evm.http_enabled", App, "evm", "http_enabled", Bool, || Val::Bool(true)),
    f("evm.http_port", App, "evm", "http_port", Int, || Val::Int(8545)),
    f("evm.ws_enabled", App, "evm", "ws_enabled", Bool, || Val::Bool(true)),
    hot(f("evm.cors_origins", App, "evm", "cors_origins", Str, || s("*"))),
    hot(f("evm.deny_list", App, "evm", "deny_list", List, || list(&[]))),
];

//! sei-tendermint's P2P handshake (the `sei-chain` repository's `sei-tendermint/internal/p2p`),
//! client and responder side, and the seed probe built on it.
//!
//! Order on one connection: plaintext `Preface` (ephemeral X25519 keys) → [`secret`] key schedule
//! (Merlin challenge, HKDF keys) → [`frame`]d ChaCha20-Poly1305 stream ([`conn`]) → signed
//! `Handshake` with self address and PEX addresses → `NodeInfo` ([`handshake`]).
//! Unlike CometBFT's classic handshake, authentication is a separate sized `Handshake` message
//! (not an `AuthSigMessage` inside the secret connection), frames are buffered until full or
//! flushed, a listener pushes up to 100 PEX addresses in the Handshake, and there is no
//! common-channel check.
//!
//! [`probe`] reaches the network only through [`crate::ports::PeerDialer`]; [`tcp::TcpDialer`]
//! is the production adapter.
//!
//! The modules: `secret` (ephemeral X25519, Merlin challenge, HKDF-SHA256 keys), `frame` (1044-byte
//! ChaCha20-Poly1305 frames, a nonce counter per direction), `wire` (the prost messages `Preface`,
//! `Handshake`, `NodeInfo`; size caps; the repeated-singular-field check), `conn`
//! (`SecretConnection` over any `AsyncRead + AsyncWrite`: buffered frames, capped length-prefixed
//! reads, a frame-count cap), `handshake` (our signed Handshake and NodeInfo; upstream's checks of
//! the peer's), `address` (`NodeAddress`, loopback), `probe` (one deadline over connect, secret
//! connection, Handshake and NodeInfo), `judge` (the seven verdicts, pure; `CheckCounts`: passed,
//! failed, not reached, undecided), `prober` (`P2pProber`, the `ports::probe::SeedProber` adapter),
//! `report` (text), `tcp` (the production dialer); test vectors in `p2p/testdata/`. An adapter:
//! `ops` and the console never name it; the composition root hands the prober in.
pub mod address;
pub mod conn;
pub mod frame;
pub mod handshake;
pub mod judge;
pub mod probe;
pub mod prober;
pub mod report;
pub mod secret;
pub mod tcp;
pub mod wire;

#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod testdata;

pub use judge::{Check, CheckName, Verdict};
pub use probe::{DEFAULT_TIMEOUT, Expected, ProbeReport, probe};

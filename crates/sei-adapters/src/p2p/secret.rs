//! The secret connection's key schedule (sei-tendermint `internal/p2p/conn/secret_connection.go`):
//! X25519 between the two ephemeral keys, the Merlin transcript challenge both sides sign, and the
//! two ChaCha20-Poly1305 keys from HKDF-SHA256 over the DH secret. Pure.
use hkdf::Hkdf;
use merlin::Transcript;
use sha2::Sha256;

const TRANSCRIPT_LABEL: &[u8] = b"TENDERMINT_SECRET_CONNECTION_TRANSCRIPT_HASH";
const LABEL_LOWER: &[u8] = b"EPHEMERAL_LOWER_PUBLIC_KEY";
const LABEL_UPPER: &[u8] = b"EPHEMERAL_UPPER_PUBLIC_KEY";
const LABEL_DH: &[u8] = b"DH_SECRET";
const LABEL_CHALLENGE: &[u8] = b"SECRET_CONNECTION_MAC";
const HKDF_INFO: &[u8] = b"TENDERMINT_SECRET_CONNECTION_KEY_AND_CHALLENGE_GEN";

/// An ephemeral X25519 key pair, used for one connection only.
pub struct Ephemeral {
    secret: [u8; 32],
    pub public: [u8; 32],
}

impl std::fmt::Debug for Ephemeral {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ephemeral")
            .field("public", &self.public)
            .field("secret", &"<redacted>")
            .finish()
    }
}

impl Drop for Ephemeral {
    fn drop(&mut self) {
        self.secret.fill(0);
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    #[error("no randomness available for the ephemeral key: {0}")]
    Randomness(String),
    /// The peer sent a low-order point; upstream rejects it the same way.
    #[error("the peer's ephemeral key gives an all-zero DH secret (low-order point)")]
    LowOrderPoint,
}

impl Ephemeral {
    /// A fresh key from the operating system's random source.
    pub fn generate() -> Result<Ephemeral, SecretError> {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret).map_err(|e| SecretError::Randomness(e.to_string()))?;
        Ok(Ephemeral::from_secret(secret))
    }

    /// The key pair of a given scalar (X25519 clamps it, as Go's `curve25519.X25519` does).
    pub fn from_secret(secret: [u8; 32]) -> Ephemeral {
        let public = x25519_dalek::x25519(secret, x25519_dalek::X25519_BASEPOINT_BYTES);
        Ephemeral { secret, public }
    }

    /// The DH secret with the peer's public key and everything derived from it.
    pub fn session(&self, remote_public: &[u8; 32]) -> Result<SessionSecrets, SecretError> {
        let dh = x25519_dalek::x25519(self.secret, *remote_public);
        if dh == [0u8; 32] {
            return Err(SecretError::LowOrderPoint);
        }
        let local_is_lower = self.public <= *remote_public;
        let (lower, upper) = if local_is_lower {
            (&self.public, remote_public)
        } else {
            (remote_public, &self.public)
        };
        let (send_key, recv_key) = aead_keys(&dh, local_is_lower);
        Ok(SessionSecrets {
            challenge: challenge(lower, upper, &dh),
            send_key,
            recv_key,
        })
    }
}

/// What both sides of one connection derive: the challenge each signs, and one key per direction.
pub struct SessionSecrets {
    pub challenge: [u8; 32],
    pub send_key: [u8; 32],
    pub recv_key: [u8; 32],
}

impl std::fmt::Debug for SessionSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionSecrets")
            .field("challenge", &self.challenge)
            .finish_non_exhaustive()
    }
}

/// The Merlin transcript challenge over the sorted ephemeral keys and the DH secret.
pub fn challenge(lower: &[u8; 32], upper: &[u8; 32], dh: &[u8; 32]) -> [u8; 32] {
    let mut transcript = Transcript::new(TRANSCRIPT_LABEL);
    transcript.append_message(LABEL_LOWER, lower);
    transcript.append_message(LABEL_UPPER, upper);
    transcript.append_message(LABEL_DH, dh);
    let mut out = [0u8; 32];
    transcript.challenge_bytes(LABEL_CHALLENGE, &mut out);
    out
}

/// `(send, recv)`: the first 32 HKDF bytes are the lower key's receive key, the next 32 its send
/// key (upstream reads them as send, recv and swaps them when the local key is the lower one).
pub fn aead_keys(dh: &[u8; 32], local_is_lower: bool) -> ([u8; 32], [u8; 32]) {
    let mut okm = [0u8; 64];
    // 64 bytes is far below HKDF-SHA256's 8160-byte limit, so expand cannot fail.
    if Hkdf::<Sha256>::new(None, dh)
        .expand(HKDF_INFO, &mut okm)
        .is_err()
    {
        unreachable!("HKDF-SHA256 expands 64 bytes");
    }
    let mut first = [0u8; 32];
    let mut second = [0u8; 32];
    first.copy_from_slice(&okm[..32]);
    second.copy_from_slice(&okm[32..]);
    okm.fill(0);
    if local_is_lower {
        (second, first)
    } else {
        (first, second)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::p2p::testdata::{GoSession, go_sessions, hex32, upstream_golden};

    #[test]
    fn aead_keys_match_every_upstream_golden_line() {
        let lines = upstream_golden();
        assert_eq!(lines.len(), 32);
        for line in lines {
            let (send, recv) = aead_keys(&line.dh, line.loc_is_least);
            assert_eq!(recv, line.recv, "recv key for dh {:02x?}", line.dh);
            assert_eq!(send, line.send, "send key for dh {:02x?}", line.dh);
        }
    }

    #[test]
    fn merlin_matches_the_go_library_test_vector() {
        let mut t = Transcript::new(b"test protocol");
        t.append_message(b"some label", b"some data");
        let mut out = [0u8; 32];
        t.challenge_bytes(b"challenge", &mut out);
        assert_eq!(
            out,
            hex32("d5a21972d0d5fe320c0d263fac7fffb8145aa640af6e9bca177c03c7efcf0615")
        );
    }

    #[test]
    fn session_matches_the_go_vectors_from_both_sides() {
        for GoSession {
            loc_secret,
            rem_secret,
            loc_pub,
            rem_pub,
            challenge,
            send,
            recv,
            ..
        } in go_sessions()
        {
            let local = Ephemeral::from_secret(loc_secret);
            assert_eq!(local.public, loc_pub);
            let secrets = local.session(&rem_pub).expect("session");
            assert_eq!(secrets.challenge, challenge);
            assert_eq!(secrets.send_key, send);
            assert_eq!(secrets.recv_key, recv);
            // The other side derives the same challenge and the mirrored keys.
            let remote = Ephemeral::from_secret(rem_secret);
            assert_eq!(remote.public, rem_pub);
            let theirs = remote.session(&loc_pub).expect("session");
            assert_eq!(theirs.challenge, challenge);
            assert_eq!((theirs.send_key, theirs.recv_key), (recv, send));
        }
    }

    #[test]
    fn low_order_points_are_refused() {
        let local = Ephemeral::from_secret([7; 32]);
        assert_eq!(
            local.session(&[0; 32]).unwrap_err(),
            SecretError::LowOrderPoint
        );
        let mut one = [0u8; 32];
        one[0] = 1;
        assert_eq!(local.session(&one).unwrap_err(), SecretError::LowOrderPoint);
    }

    #[test]
    fn debug_hides_the_secret() {
        let text = format!("{:?}", Ephemeral::from_secret([0x42; 32]));
        assert!(text.contains("redacted") && !text.contains("66, 66, 66, 66"));
    }
}

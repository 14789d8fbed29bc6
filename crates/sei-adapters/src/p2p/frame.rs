//! Secret-connection frames: a 1028-byte plaintext (`u32` LE data length, at most 1024 data bytes,
//! zero padding) sealed with ChaCha20-Poly1305 into exactly 1044 bytes; the nonce is 4 zero bytes
//! then a per-direction `u64` LE counter starting at 0. Pure.
use chacha20poly1305::aead::{AeadInOut, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Nonce, Tag};

pub const DATA_MAX: usize = 1024;
pub const PLAIN_FRAME: usize = 4 + DATA_MAX;
pub const TAG_SIZE: usize = 16;
pub const SEALED_FRAME: usize = PLAIN_FRAME + TAG_SIZE;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("a sealed frame failed authentication (wrong keys or a tampered stream)")]
    Authentication,
    #[error("a frame declares {0} data bytes, more than {DATA_MAX}")]
    DataTooLong(u32),
    #[error("the frame counter is exhausted")]
    NonceExhausted,
}

/// One direction's cipher and frame counter.
pub struct FrameCipher {
    cipher: ChaCha20Poly1305,
    counter: u64,
}

impl std::fmt::Debug for FrameCipher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameCipher")
            .field("counter", &self.counter)
            .finish_non_exhaustive()
    }
}

impl FrameCipher {
    pub fn new(key: &[u8; 32]) -> FrameCipher {
        FrameCipher {
            cipher: ChaCha20Poly1305::new(&(*key).into()),
            counter: 0,
        }
    }

    fn next_nonce(&mut self) -> Result<Nonce, FrameError> {
        // Upstream refuses to use the last counter value too.
        if self.counter == u64::MAX {
            return Err(FrameError::NonceExhausted);
        }
        let mut nonce = [0u8; 12];
        nonce[4..].copy_from_slice(&self.counter.to_le_bytes());
        self.counter += 1;
        Ok(nonce.into())
    }

    /// Seals up to [`DATA_MAX`] bytes as one frame.
    pub fn seal(&mut self, data: &[u8]) -> Result<[u8; SEALED_FRAME], FrameError> {
        let len = data.len().min(DATA_MAX);
        let mut plain = [0u8; PLAIN_FRAME];
        plain[..4].copy_from_slice(&(len as u32).to_le_bytes());
        plain[4..4 + len].copy_from_slice(&data[..len]);
        self.seal_plain(plain)
    }

    /// Seals a raw plaintext frame, header included (the stand-in uses it to send bad headers).
    pub fn seal_plain(
        &mut self,
        mut plain: [u8; PLAIN_FRAME],
    ) -> Result<[u8; SEALED_FRAME], FrameError> {
        let nonce = self.next_nonce()?;
        let tag = self
            .cipher
            .encrypt_inout_detached(&nonce, &[], plain.as_mut_slice().into())
            .map_err(|_| FrameError::Authentication)?;
        let mut sealed = [0u8; SEALED_FRAME];
        sealed[..PLAIN_FRAME].copy_from_slice(&plain);
        sealed[PLAIN_FRAME..].copy_from_slice(&tag);
        Ok(sealed)
    }

    /// Opens one sealed frame and returns its data bytes.
    pub fn open(&mut self, sealed: &[u8; SEALED_FRAME]) -> Result<Vec<u8>, FrameError> {
        let nonce = self.next_nonce()?;
        let mut plain = [0u8; PLAIN_FRAME];
        plain.copy_from_slice(&sealed[..PLAIN_FRAME]);
        let tag = Tag::try_from(&sealed[PLAIN_FRAME..]).map_err(|_| FrameError::Authentication)?;
        self.cipher
            .decrypt_inout_detached(&nonce, &[], plain.as_mut_slice().into(), &tag)
            .map_err(|_| FrameError::Authentication)?;
        let len = u32::from_le_bytes([plain[0], plain[1], plain[2], plain[3]]);
        if len as usize > DATA_MAX {
            return Err(FrameError::DataTooLong(len));
        }
        Ok(plain[4..4 + len as usize].to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::p2p::testdata::go_sessions;
    use sha2::{Digest, Sha256};

    #[test]
    fn first_frame_matches_go_byte_for_byte() {
        for session in go_sessions() {
            let sealed = FrameCipher::new(&session.send)
                .seal(b"hello")
                .expect("seal");
            assert_eq!(sealed[PLAIN_FRAME..], session.frame0_hello_tag[..]);
            assert_eq!(
                Sha256::digest(sealed).as_slice(),
                session.frame0_hello_sha256
            );
            // The peer's receive key is our send key.
            let opened = FrameCipher::new(&session.send).open(&sealed).expect("open");
            assert_eq!(opened, b"hello");
        }
    }

    #[test]
    fn counters_advance_per_frame_and_tampering_is_caught() {
        let key = [9u8; 32];
        let mut tx = FrameCipher::new(&key);
        let mut rx = FrameCipher::new(&key);
        let one = tx.seal(b"one").expect("seal");
        let two = tx.seal(&[0xab; 2000]).expect("seal");
        assert_eq!(rx.open(&one).expect("open"), b"one");
        assert_eq!(rx.open(&two).expect("open"), vec![0xab; DATA_MAX]);
        let mut replay = FrameCipher::new(&key);
        assert_eq!(replay.open(&two), Err(FrameError::Authentication));
        let mut flipped = one;
        flipped[10] ^= 1;
        assert_eq!(
            FrameCipher::new(&key).open(&flipped),
            Err(FrameError::Authentication)
        );
    }

    #[test]
    fn a_declared_length_over_the_maximum_is_refused() {
        let key = [3u8; 32];
        let mut plain = [0u8; PLAIN_FRAME];
        plain[..4].copy_from_slice(&5000u32.to_le_bytes());
        let sealed = FrameCipher::new(&key).seal_plain(plain).expect("seal");
        assert_eq!(
            FrameCipher::new(&key).open(&sealed),
            Err(FrameError::DataTooLong(5000))
        );
    }

    #[test]
    fn the_last_counter_is_never_used() {
        let mut tx = FrameCipher::new(&[1; 32]);
        tx.counter = u64::MAX;
        assert_eq!(tx.seal(b"x").unwrap_err(), FrameError::NonceExhausted);
    }
}

//! The secret connection over any byte stream (a TCP socket, or an in-memory pipe in tests): the
//! plaintext preface exchange, then length-prefixed messages inside sealed frames. Either side
//! uses it; every read is capped before anything is allocated.
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::frame::{DATA_MAX, FrameCipher, FrameError, SEALED_FRAME};
use super::secret::{Ephemeral, SecretError};
use super::wire::{self, MAX_PREFACE, MAX_VARINT, Preface, VarintError, WireError};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConnError {
    #[error("the peer closed the connection")]
    Closed,
    #[error("{0}")]
    Io(String),
    #[error("the peer announced a {what} of {got} bytes, more than the {max} allowed")]
    TooLarge {
        what: &'static str,
        got: u64,
        max: usize,
    },
    #[error(transparent)]
    Varint(#[from] VarintError),
    #[error(transparent)]
    Wire(#[from] WireError),
    #[error(transparent)]
    Frame(#[from] FrameError),
    #[error(transparent)]
    Secret(#[from] SecretError),
    #[error("the peer's ephemeral key has {0} bytes, not 32")]
    BadEphemeralKey(usize),
    #[error("the peer sent more than {0} frames during the handshake")]
    TooManyFrames(usize),
}

/// Frames the whole handshake may take: both capped messages, each in whole frames, plus slack.
pub const MAX_FRAMES: usize = (wire::MAX_HANDSHAKE + wire::MAX_NODE_INFO) / DATA_MAX + 8;

impl From<std::io::Error> for ConnError {
    fn from(e: std::io::Error) -> ConnError {
        match e.kind() {
            std::io::ErrorKind::UnexpectedEof
            | std::io::ErrorKind::ConnectionReset
            | std::io::ErrorKind::BrokenPipe => ConnError::Closed,
            _ => ConnError::Io(e.to_string()),
        }
    }
}

/// A uvarint length prefix read one byte at a time (never past the prefix), checked against a cap.
struct LengthPrefix {
    bytes: [u8; MAX_VARINT],
    len: usize,
    what: &'static str,
    max: usize,
}

impl LengthPrefix {
    fn new(what: &'static str, max: usize) -> LengthPrefix {
        LengthPrefix {
            bytes: [0; MAX_VARINT],
            len: 0,
            what,
            max,
        }
    }

    /// `Some(length)` once the prefix is complete.
    fn push(&mut self, byte: u8) -> Result<Option<usize>, ConnError> {
        if self.len == MAX_VARINT {
            return Err(ConnError::Varint(VarintError));
        }
        self.bytes[self.len] = byte;
        self.len += 1;
        match wire::uvarint(&self.bytes[..self.len])? {
            None => Ok(None),
            Some((len, _)) => match usize::try_from(len) {
                Ok(len) if len <= self.max => Ok(Some(len)),
                _ => Err(ConnError::TooLarge {
                    what: self.what,
                    got: len,
                    max: self.max,
                }),
            },
        }
    }
}

/// Sends our preface and reads the peer's; returns the peer's ephemeral public key.
pub async fn exchange_prefaces<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    local: &Ephemeral,
) -> Result<[u8; 32], ConnError> {
    let preface = Preface {
        sts_public_key: local.public.to_vec(),
    };
    stream.write_all(&wire::sized(&preface)).await?;
    stream.flush().await?;
    let mut prefix = LengthPrefix::new("preface", MAX_PREFACE);
    let len = loop {
        if let Some(len) = prefix.push(stream.read_u8().await?)? {
            break len;
        }
    };
    let mut bytes = vec![0u8; len];
    stream.read_exact(&mut bytes).await?;
    wire::check_singular("Preface", &bytes, &[1])?;
    let preface: Preface = wire::decode("Preface", &bytes)?;
    preface
        .sts_public_key
        .as_slice()
        .try_into()
        .map_err(|_| ConnError::BadEphemeralKey(preface.sts_public_key.len()))
}

/// The encrypted stream after the prefaces, with the challenge both sides sign.
pub struct SecretConnection<S> {
    stream: S,
    send: FrameCipher,
    recv: FrameCipher,
    outgoing: Vec<u8>,
    incoming: Vec<u8>,
    incoming_at: usize,
    pub challenge: [u8; 32],
    /// Sealed frames read so far (bounded by the callers' size caps).
    pub frames_read: usize,
}

impl<S: AsyncRead + AsyncWrite + Unpin> SecretConnection<S> {
    /// Exchanges prefaces on `stream` and derives the session.
    pub async fn establish(mut stream: S, local: &Ephemeral) -> Result<Self, ConnError> {
        let remote = exchange_prefaces(&mut stream, local).await?;
        let secrets = local.session(&remote)?;
        Ok(SecretConnection {
            stream,
            send: FrameCipher::new(&secrets.send_key),
            recv: FrameCipher::new(&secrets.recv_key),
            outgoing: Vec::new(),
            incoming: Vec::new(),
            incoming_at: 0,
            challenge: secrets.challenge,
            frames_read: 0,
        })
    }

    /// Buffers bytes; full frames go out at once, the rest on [`Self::flush`] (as upstream).
    pub async fn write(&mut self, bytes: &[u8]) -> Result<(), ConnError> {
        self.outgoing.extend_from_slice(bytes);
        while self.outgoing.len() > DATA_MAX {
            let sealed = self.send.seal(&self.outgoing[..DATA_MAX])?;
            self.outgoing.drain(..DATA_MAX);
            self.stream.write_all(&sealed).await?;
        }
        Ok(())
    }

    /// Seals what is buffered (if anything) as a last, shorter frame and flushes the stream.
    pub async fn flush(&mut self) -> Result<(), ConnError> {
        if !self.outgoing.is_empty() {
            let sealed = self.send.seal(&self.outgoing)?;
            self.outgoing.clear();
            self.stream.write_all(&sealed).await?;
        }
        self.stream.flush().await?;
        Ok(())
    }

    /// Writes one length-prefixed message and flushes.
    pub async fn send_message(&mut self, message: &impl prost::Message) -> Result<(), ConnError> {
        self.write(&wire::sized(message)).await?;
        self.flush().await
    }

    /// Sends a sealed frame built from a raw plaintext (misbehaving test peers only).
    pub async fn send_raw_frame(
        &mut self,
        plain: [u8; super::frame::PLAIN_FRAME],
    ) -> Result<(), ConnError> {
        let sealed = self.send.seal_plain(plain)?;
        self.stream.write_all(&sealed).await?;
        self.stream.flush().await?;
        Ok(())
    }

    async fn next_byte(&mut self) -> Result<u8, ConnError> {
        while self.incoming_at == self.incoming.len() {
            // Empty frames carry nothing; a peer sending only those hits the frame cap.
            if self.frames_read >= MAX_FRAMES {
                return Err(ConnError::TooManyFrames(MAX_FRAMES));
            }
            let mut sealed = [0u8; SEALED_FRAME];
            self.stream.read_exact(&mut sealed).await?;
            self.frames_read += 1;
            self.incoming = self.recv.open(&sealed)?;
            self.incoming_at = 0;
        }
        let byte = self.incoming[self.incoming_at];
        self.incoming_at += 1;
        Ok(byte)
    }

    /// Reads one length-prefixed message of at most `max` bytes.
    pub async fn read_message(
        &mut self,
        what: &'static str,
        max: usize,
    ) -> Result<Vec<u8>, ConnError> {
        let mut prefix = LengthPrefix::new(what, max);
        let len = loop {
            if let Some(len) = prefix.push(self.next_byte().await?)? {
                break len;
            }
        };
        let mut out = Vec::with_capacity(len);
        while out.len() < len {
            if self.incoming_at == self.incoming.len() {
                let first = self.next_byte().await?;
                out.push(first);
                continue;
            }
            let take = (len - out.len()).min(self.incoming.len() - self.incoming_at);
            out.extend_from_slice(&self.incoming[self.incoming_at..self.incoming_at + take]);
            self.incoming_at += take;
        }
        Ok(out)
    }

    /// The stream underneath, borrowed (to peek at what is waiting without consuming it).
    pub fn get_ref(&self) -> &S {
        &self.stream
    }

    /// The stream underneath (to shut it down).
    pub fn into_inner(self) -> S {
        self.stream
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn pair() -> (
        SecretConnection<tokio::io::DuplexStream>,
        SecretConnection<tokio::io::DuplexStream>,
    ) {
        let (a, b) = tokio::io::duplex(64 * 1024);
        let (ka, kb) = (
            Ephemeral::from_secret([1; 32]),
            Ephemeral::from_secret([2; 32]),
        );
        let (x, y) = tokio::join!(
            SecretConnection::establish(a, &ka),
            SecretConnection::establish(b, &kb)
        );
        (x.expect("a"), y.expect("b"))
    }

    #[tokio::test]
    async fn both_sides_agree_and_messages_span_frames() {
        let (mut a, mut b) = pair().await;
        assert_eq!(a.challenge, b.challenge);
        let big = wire::Handshake {
            pex_addrs: (0..100)
                .map(|i| format!("mconn://{i:040}@host-{i}:26656"))
                .collect(),
            ..wire::Handshake::default()
        };
        let small = wire::Preface {
            sts_public_key: vec![5; 32],
        };
        a.send_message(&big).await.expect("send");
        a.send_message(&small).await.expect("send");
        let got = b.read_message("Handshake", 64 * 1024).await.expect("read");
        assert_eq!(wire::decode::<wire::Handshake>("h", &got).unwrap(), big);
        assert!(b.frames_read >= 7, "{} frames", b.frames_read);
        let got = b.read_message("Preface", 100).await.expect("read");
        assert_eq!(wire::decode::<wire::Preface>("p", &got).unwrap(), small);
    }

    #[tokio::test]
    async fn an_announced_length_over_the_cap_is_refused_before_reading_it() {
        let (mut a, mut b) = pair().await;
        a.write(&[0xff, 0xff, 0xff, 0xff, 0x0f])
            .await
            .expect("write");
        a.flush().await.expect("flush");
        assert_eq!(
            b.read_message("NodeInfo", 10240).await.unwrap_err(),
            ConnError::TooLarge {
                what: "NodeInfo",
                got: 0xffff_ffff,
                max: 10240
            }
        );
    }

    #[tokio::test]
    async fn an_oversized_preface_is_refused() {
        let (mut a, b) = tokio::io::duplex(4096);
        let key = Ephemeral::from_secret([1; 32]);
        let peer = tokio::spawn(async move {
            let mut b = b;
            b.write_all(&[0x80, 0x80, 0x04]).await.expect("write");
            b
        });
        let err = exchange_prefaces(&mut a, &key).await.unwrap_err();
        assert_eq!(
            err,
            ConnError::TooLarge {
                what: "preface",
                got: 65536,
                max: MAX_PREFACE
            }
        );
        drop(peer.await);
    }
}

//! Reading a sidecar's answer with a size bound (`limits::SIDECAR_BODY`): a sidecar that
//! answers with more (a bug, a proxy's error page gone wild, anything in between) is refused
//! with a typed error naming the limit, without the console holding the whole of it.
//!
//! A `Content-Length` over the limit is refused before reading, a body without one is read no
//! further than the limit; either is `SidecarError::TooLarge` (terminal). On a port-forward the
//! connection is dropped and the next call opens another. Every transport reads its answers through
//! `read_bounded`.
use bytes::{Buf, Bytes, BytesMut};
use http_body_util::BodyExt;

use crate::limits::{self, LimitError};
use crate::ports::{SidecarError, SidecarTarget};

/// Why an answer's body was not read whole.
#[derive(Debug)]
pub(super) enum BodyError<E> {
    /// Over the limit: reading stopped there.
    TooLarge(LimitError),
    /// The stream broke.
    Broken(E),
}

impl<E> BodyError<E> {
    /// The caller's error: `TooLarge` as [`SidecarError::TooLarge`], a broken stream as
    /// `broken` says.
    pub(super) fn into_sidecar_error(
        self,
        target: &SidecarTarget,
        path: &str,
        broken: impl FnOnce(E) -> SidecarError,
    ) -> SidecarError {
        match self {
            BodyError::TooLarge(LimitError::TooLarge { size, limit }) => SidecarError::TooLarge {
                target: target.clone(),
                path: path.to_owned(),
                size,
                limit,
            },
            // Only the size is checked here.
            BodyError::TooLarge(LimitError::TooDeep { .. }) => SidecarError::TooLarge {
                target: target.clone(),
                path: path.to_owned(),
                size: 0,
                limit: limits::SIDECAR_BODY.max_bytes,
            },
            BodyError::Broken(error) => broken(error),
        }
    }
}

/// The body of `response`, at most `limits::SIDECAR_BODY.max_bytes`: a `Content-Length` over it
/// is refused before reading, a body without one stops being read at the first frame past it.
pub(super) async fn read_bounded<B>(
    headers: &http::HeaderMap,
    body: B,
) -> Result<Bytes, BodyError<B::Error>>
where
    B: hyper::body::Body + Unpin,
{
    read_bounded_to(headers, body, limits::SIDECAR_BODY).await
}

async fn read_bounded_to<B>(
    headers: &http::HeaderMap,
    mut body: B,
    bound: limits::InputLimits,
) -> Result<Bytes, BodyError<B::Error>>
where
    B: hyper::body::Body + Unpin,
{
    let declared = headers
        .get(http::header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse::<usize>().ok());
    if let Some(declared) = declared {
        limits::check_size(declared, bound).map_err(BodyError::TooLarge)?;
    }
    let mut collected = BytesMut::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(BodyError::Broken)?;
        if let Ok(mut data) = frame.into_data() {
            limits::check_size(collected.len() + data.remaining(), bound)
                .map_err(BodyError::TooLarge)?;
            while data.has_remaining() {
                let chunk = data.chunk();
                collected.extend_from_slice(chunk);
                let read = chunk.len();
                data.advance(read);
            }
        }
    }
    Ok(collected.freeze())
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::{Full, StreamBody};

    const SMALL: limits::InputLimits = limits::InputLimits {
        max_bytes: 8,
        max_depth: 1,
    };

    fn frames(
        chunks: Vec<&'static [u8]>,
    ) -> impl hyper::body::Body<Data = Bytes, Error = std::convert::Infallible> + Unpin {
        let frames: Vec<_> = chunks
            .into_iter()
            .map(|c| Ok(hyper::body::Frame::data(Bytes::from_static(c))))
            .collect();
        StreamBody::new(futures::stream::iter(frames))
    }

    #[tokio::test]
    async fn a_body_within_the_limit_is_read_whole() {
        let body = frames(vec![b"1234", b"5678"]);
        let read = read_bounded_to(&http::HeaderMap::new(), body, SMALL)
            .await
            .expect("within the limit");
        assert_eq!(&read[..], b"12345678");
    }

    #[tokio::test]
    async fn a_body_past_the_limit_stops_being_read() {
        // The stream would go on: the read stops at the frame that crosses the limit.
        let body = frames(vec![b"1234", b"56789", b"never read"]);
        let Err(BodyError::TooLarge(refused)) =
            read_bounded_to(&http::HeaderMap::new(), body, SMALL).await
        else {
            panic!("refused");
        };
        assert_eq!(refused.to_string(), "over the limit of 8 bytes (read 9)");
    }

    #[tokio::test]
    async fn a_declared_length_over_the_limit_is_refused_before_reading() {
        let mut headers = http::HeaderMap::new();
        headers.insert(http::header::CONTENT_LENGTH, "9000000".parse().expect("h"));
        let body = Full::new(Bytes::from_static(b"small"));
        let Err(BodyError::TooLarge(refused)) = read_bounded_to(&headers, body, SMALL).await else {
            panic!("refused");
        };
        assert_eq!(
            refused.to_string(),
            "over the limit of 8 bytes (read 9000000)"
        );
    }

    #[test]
    fn the_error_names_the_node_the_path_and_the_limit() {
        let target = SidecarTarget::new("sei", "rpc-0");
        let error = BodyError::<std::convert::Infallible>::TooLarge(LimitError::TooLarge {
            size: 9,
            limit: 8,
        })
        .into_sidecar_error(&target, "/v0/tasks", |never| match never {});
        assert_eq!(
            error.to_string(),
            "sidecar of sei/rpc-0 answered /v0/tasks with at least 9 bytes, over the console's \
             limit of 8; the answer was not used"
        );
        assert!(!error.is_transient());
    }
}

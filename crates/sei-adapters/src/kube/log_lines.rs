//! A pod log as lines, each at most `limits::LOG_LINE_BYTES`: a longer line keeps its start, is
//! cut there with a marker naming what was dropped, and the stream goes on with the next line.
//! Bytes that are not UTF-8 are shown as U+FFFD instead of ending the stream.
use futures::io::{AsyncBufRead, AsyncBufReadExt};
use futures::stream::{self, Stream};

/// The lines of `reader`, each cut to `max` bytes.
pub(super) fn bounded_lines<R>(reader: R, max: usize) -> impl Stream<Item = std::io::Result<String>>
where
    R: AsyncBufRead + Unpin,
{
    stream::unfold(Some(reader), move |state| async move {
        let mut reader = state?;
        match next_line(&mut reader, max).await {
            Ok(Some(line)) => Some((Ok(line), Some(reader))),
            Ok(None) => None,
            Err(error) => Some((Err(error), None)),
        }
    })
}

/// The next line without its `\n` (or `\r\n`); `None` at the end.
async fn next_line<R>(reader: &mut R, max: usize) -> std::io::Result<Option<String>>
where
    R: AsyncBufRead + Unpin,
{
    let mut kept: Vec<u8> = Vec::new();
    let mut dropped: u64 = 0;
    let mut any = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(any.then(|| finish(kept, dropped, max)));
        }
        any = true;
        let newline = available.iter().position(|b| *b == b'\n');
        let part = &available[..newline.unwrap_or(available.len())];
        let take = part.len().min(max.saturating_sub(kept.len()));
        kept.extend_from_slice(&part[..take]);
        dropped += (part.len() - take) as u64;
        let consumed = part.len() + usize::from(newline.is_some());
        reader.consume_unpin(consumed);
        if newline.is_some() {
            return Ok(Some(finish(kept, dropped, max)));
        }
    }
}

fn finish(mut kept: Vec<u8>, mut dropped: u64, max: usize) -> String {
    if dropped == 0 {
        if kept.last() == Some(&b'\r') {
            kept.pop();
        }
        return String::from_utf8_lossy(&kept).into_owned();
    }
    // A character cut in two at the limit is dropped whole.
    if let Err(error) = std::str::from_utf8(&kept)
        && error.error_len().is_none()
    {
        dropped += (kept.len() - error.valid_up_to()) as u64;
        kept.truncate(error.valid_up_to());
    }
    format!(
        "{}… [line cut at {max} bytes: {dropped} more bytes not shown]",
        String::from_utf8_lossy(&kept)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;

    async fn lines(input: &[u8], max: usize) -> Vec<String> {
        bounded_lines(futures::io::Cursor::new(input.to_vec()), max)
            .map(|line| line.expect("line"))
            .collect()
            .await
    }

    #[tokio::test]
    async fn short_lines_are_as_lines_gives_them() {
        assert_eq!(
            lines(b"one\r\ntwo\n\nthree", 16).await,
            ["one", "two", "", "three"]
        );
        assert!(lines(b"", 16).await.is_empty());
    }

    #[tokio::test]
    async fn a_long_line_is_cut_with_a_marker_and_the_next_line_follows() {
        let mut input = vec![b'x'; 100_000];
        input.extend_from_slice(b"\nnext line\n");
        // A reader handing out small pieces, as a network stream does.
        let reader = futures::io::BufReader::with_capacity(4096, futures::io::Cursor::new(input));
        let got: Vec<String> = bounded_lines(reader, 1024)
            .map(|line| line.expect("line"))
            .collect()
            .await;
        assert_eq!(
            got.len(),
            2,
            "{:?}",
            got.iter().map(String::len).collect::<Vec<_>>()
        );
        assert_eq!(
            got[0],
            format!(
                "{}… [line cut at 1024 bytes: 98976 more bytes not shown]",
                "x".repeat(1024)
            )
        );
        assert_eq!(got[1], "next line");
    }

    #[tokio::test]
    async fn a_character_cut_in_two_is_dropped_and_bad_bytes_do_not_end_the_stream() {
        // "é" is two bytes: the limit falls between them.
        let got = lines("aé and more\nok \u{0}\n".as_bytes(), 2).await;
        assert_eq!(got[0], "a… [line cut at 2 bytes: 11 more bytes not shown]");
        let got = lines(b"bad \xff byte\nafter\n", 64).await;
        assert_eq!(got, ["bad \u{fffd} byte", "after"]);
    }
}

//! Reading one journal file within `READ_LIMIT_BYTES`, and telling whether an open journal file is
//! still the one its name points at (rotation).
use std::io::{BufRead, Read, Seek};
use std::path::Path;

use super::{JournalContents, JournalError, READ_LIMIT_BYTES};

/// The text of one journal file, and how many bytes at its start were not read.
pub(super) struct Part {
    text: String,
    skipped: u64,
}

/// One journal file, at most its last `READ_LIMIT_BYTES` (from the start of a line); `None` when
/// it does not exist.
pub(super) fn read_part(path: &Path) -> Result<Option<Part>, JournalError> {
    let failed = |source| JournalError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(failed(source)),
    };
    let size = file.metadata().map_err(failed)?.len();
    let limit = READ_LIMIT_BYTES;
    let mut reader = std::io::BufReader::new(file);
    let mut skipped = 0;
    if size > limit {
        reader
            .seek(std::io::SeekFrom::Start(size - limit))
            .map_err(failed)?;
        // The rest of the line cut by the seek.
        let mut partial = Vec::new();
        let cut = reader.read_until(b'\n', &mut partial).map_err(failed)?;
        skipped = size - limit + cut as u64;
    }
    // Lines appended since the size was read are left for the next read.
    let mut bytes = Vec::new();
    reader.take(limit).read_to_end(&mut bytes).map_err(failed)?;
    Ok(Some(Part {
        text: String::from_utf8_lossy(&bytes).into_owned(),
        skipped,
    }))
}

/// Whether `file` is still the one named `path` (another console may have rotated it).
pub(super) fn still_at(file: &std::fs::File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
        _ => false,
    }
}

impl Part {
    /// The entries of this part into `contents`; a damaged line and skipped bytes are problems
    /// naming `path`.
    pub(super) fn parse_into(&self, path: &Path, contents: &mut JournalContents) {
        if self.skipped > 0 {
            contents.problems.push(format!(
                "journal {}: its first {} bytes not read (the file is over the limit of {} bytes; \
                 the next action rotates it)",
                path.display(),
                self.skipped,
                READ_LIMIT_BYTES
            ));
        }
        for (index, line) in self.text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str(line) {
                Ok(entry) => contents.entries.push(entry),
                Err(e) => contents.problems.push(format!(
                    "journal {}: line {}{}: {e}; skipped",
                    path.display(),
                    index + 1,
                    if self.skipped > 0 {
                        " of the part read"
                    } else {
                        ""
                    }
                )),
            }
        }
    }
}

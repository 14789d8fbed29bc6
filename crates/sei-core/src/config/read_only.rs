//! Read-only mode (`--read-only`, the config file's `read_only`): whether it is on and where it
//! was switched on. The console and the commands refuse every action up front when it is on
//! (`ops::action::read_only_refusal`); the kube adapter also wraps its client so that no
//! mutating request can leave (`kube::read_only`).

/// Where read-only mode was switched on, for the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadOnlySource {
    Flag,
    Config,
}

/// Whether read-only mode is on, and where it was switched on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MutationGuard {
    read_only: Option<ReadOnlySource>,
}

impl MutationGuard {
    /// Read-only when the `--read-only` flag or the config's `read_only` says so.
    pub fn new(flag: bool, config: bool) -> Self {
        let read_only = if flag {
            Some(ReadOnlySource::Flag)
        } else if config {
            Some(ReadOnlySource::Config)
        } else {
            None
        };
        MutationGuard { read_only }
    }

    pub fn is_read_only(&self) -> bool {
        self.read_only.is_some()
    }

    /// Where read-only mode was switched on, as refusals say it; `None` when not read-only.
    pub fn hint(&self) -> Option<&'static str> {
        self.read_only.map(|source| match source {
            ReadOnlySource::Flag => "started with --read-only",
            ReadOnlySource::Config => "read_only = true in the config file",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_names_where_read_only_came_from() {
        assert_eq!(MutationGuard::new(false, false).hint(), None);
        assert_eq!(
            MutationGuard::new(true, true).hint(),
            Some("started with --read-only")
        );
        assert_eq!(
            MutationGuard::new(false, true).hint(),
            Some("read_only = true in the config file")
        );
    }
}

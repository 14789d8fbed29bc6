//! Why an action job (its preview or its run) could not go on, as the effects hand it to the
//! model (`Msg::ActionPrepared`, the end of a run): typed between the layers, words only in the
//! dialog.
use crate::ops::OpsError;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ActionError {
    #[error("operator actions are not available in this console")]
    NotAvailable,
    #[error("not connected to cluster {0:?} yet; nothing was changed")]
    NotConnected(String),
    /// `SEI_CONSOLE_SIDECAR_*` does not name a usable transport.
    #[error("{0}")]
    SidecarTransport(String),
    /// Neither the platform config file nor the controller's ConfigMap could be read.
    #[error("{0}")]
    Platform(String),
    #[error("{0}")]
    Ops(#[from] OpsError),
    /// One cluster of a request of several stopped before any change in any cluster.
    #[error("cluster {context}: {error} (the rollout stopped before any change in any cluster)")]
    InCluster {
        context: String,
        error: Box<ActionError>,
    },
    /// An action whose preview cannot span clusters.
    #[error("{0} goes to one cluster; nothing was changed")]
    OneClusterOnly(&'static str),
    #[error(
        "the preview did not finish within {0} s (is the API server answering?); nothing was changed"
    )]
    PreviewTimeout(u64),
    #[error("the preview of this action is gone; start it again")]
    PreviewGone,
}

impl ActionError {
    /// The guard against fields the port does not know refused (`ops::skew`): the one refusal
    /// the operator may override.
    pub fn is_not_understood(&self) -> bool {
        match self {
            ActionError::Ops(OpsError::NotUnderstood(_)) => true,
            ActionError::InCluster { error, .. } => error.is_not_understood(),
            _ => false,
        }
    }

    /// This error naming its cluster when the request goes to several.
    pub fn in_cluster(self, context: &str, several: bool) -> ActionError {
        if several {
            ActionError::InCluster {
                context: context.to_owned(),
                error: Box::new(self),
            }
        } else {
            self
        }
    }
}

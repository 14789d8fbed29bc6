//! Follows the cluster's SeiNode CRD (`customresourcedefinitions/seinodes.sei.io`) and sends
//! its comparison with the embedded one ([`WatchEvent::Crd`]) when the console connects and
//! each time the CRD changes (issue 36). A CRD the operator may not read is said once
//! ([`CrdView::Forbidden`]) and no longer watched: actions then check each node's own fields.
use futures::StreamExt;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ApiResource, DynamicObject};
use kube::runtime::{WatchStreamExt, watcher};
use tokio::sync::mpsc;

use super::watch::{describe_error, is_forbidden};
use crate::api::crd_compare::{CrdView, compare_crd};
use crate::fleet::watches::WatchEvent;

/// Watches the SeiNode CRD until the receiver is gone (or reading it is forbidden).
pub async fn watch_seinode_crd<M: From<WatchEvent> + Send>(
    client: kube::Client,
    epoch: u64,
    tx: mpsc::Sender<M>,
) {
    // Untyped: the schema as the API server stores it, every key kept.
    let resource = ApiResource::erase::<CustomResourceDefinition>(&());
    let api: Api<DynamicObject> = Api::all_with(client, &resource);
    let name = format!("{}.{}", crate::api::PLURAL, crate::api::GROUP);
    let config = watcher::Config::default().fields(&format!("metadata.name={name}"));
    let mut stream = std::pin::pin!(watcher(api, config).default_backoff());
    while let Some(event) = stream.next().await {
        let view = match event {
            Ok(watcher::Event::Apply(crd) | watcher::Event::InitApply(crd)) => {
                match serde_json::to_value(&crd) {
                    Ok(value) => match compare_crd(&value) {
                        Ok(comparison) => CrdView::Compared(comparison),
                        Err(err) => CrdView::Unread(err.to_string()),
                    },
                    Err(err) => CrdView::Unread(err.to_string()),
                }
            }
            Ok(watcher::Event::Delete(_)) => {
                CrdView::Unread("the cluster has no SeiNode CRD".to_owned())
            }
            Ok(_) => continue,
            Err(err) if is_forbidden(&err) => {
                let view = CrdView::Forbidden(describe_error(&err));
                let _ = tx.send(M::from(WatchEvent::Crd { epoch, view })).await;
                return;
            }
            Err(err) => {
                tracing::warn!(%err, "watching the SeiNode CRD");
                continue;
            }
        };
        if tx
            .send(M::from(WatchEvent::Crd { epoch, view }))
            .await
            .is_err()
        {
            return;
        }
    }
}

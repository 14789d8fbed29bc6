//! [`ClusterApi`] over kube-rs: typed `Api<K>` calls, server-side apply as `seinode-controller`
//! with force, JSON merge patches of the SeiNode status with the resourceVersion precondition,
//! and API errors mapped to [`ClusterErrorKind`] by HTTP code and reason, never by text.
use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{
    ConfigMap, Event, EventSource, ObjectReference, PersistentVolume, PersistentVolumeClaim, Pod,
    Secret, Service,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta, Time};
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams, PropagationPolicy};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::api::SeiNode;
use crate::ports::{
    CONSOLE_FIELD_MANAGER, ClusterApi, ClusterError, ClusterErrorKind, ClusterFuture,
    ClusterObject, FIELD_MANAGER, NodeEvent, ObjectKind, Propagation, StatusPatch,
};

/// The controller's event source component.
pub const EVENT_COMPONENT: &str = "seinode-controller";

/// [`ClusterApi`] backed by a kube-rs client.
#[derive(Clone)]
pub struct KubeCluster {
    client: kube::Client,
    /// The API server's URL, named in the error of a request that could not reach it.
    server: Option<String>,
}

impl KubeCluster {
    pub fn new(client: kube::Client) -> Self {
        Self {
            client,
            server: None,
        }
    }

    /// Names `server` (the kubeconfig's cluster URL) in errors of requests that cannot reach it.
    pub fn with_server(mut self, server: Option<String>) -> Self {
        self.server = server;
        self
    }

    fn error(&self, err: kube::Error) -> ClusterError {
        map_error_at(err, self.server.as_deref())
    }

    fn api<K>(&self, namespace: &str) -> Api<K>
    where
        K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope>,
        <K as kube::Resource>::DynamicType: Default,
    {
        Api::namespaced(self.client.clone(), namespace)
    }

    /// Server-side apply of any supported kind, for real or as a `dryRun=All` preview.
    async fn apply_object(
        &self,
        object: &ClusterObject,
        dry_run: bool,
    ) -> Result<ClusterObject, ClusterError> {
        let ns = object.namespace();
        let name = object.name();
        Ok(match object {
            ClusterObject::StatefulSet(o) => {
                ClusterObject::StatefulSet(apply_typed(self, self.api(ns), o, name, dry_run).await?)
            }
            ClusterObject::Service(o) => {
                ClusterObject::Service(apply_typed(self, self.api(ns), o, name, dry_run).await?)
            }
            ClusterObject::PersistentVolumeClaim(o) => ClusterObject::PersistentVolumeClaim(
                apply_typed(self, self.api(ns), o, name, dry_run).await?,
            ),
            ClusterObject::ConfigMap(o) => {
                ClusterObject::ConfigMap(apply_typed(self, self.api(ns), o, name, dry_run).await?)
            }
            ClusterObject::Job(o) => {
                ClusterObject::Job(apply_typed(self, self.api(ns), o, name, dry_run).await?)
            }
            ClusterObject::Secret(o) => {
                ClusterObject::Secret(apply_typed(self, self.api(ns), o, name, dry_run).await?)
            }
            ClusterObject::Pod(o) => {
                ClusterObject::Pod(apply_typed(self, self.api(ns), o, name, dry_run).await?)
            }
        })
    }
}

/// Maps a kube-rs error onto the port's error kinds.
pub fn map_error(err: kube::Error) -> ClusterError {
    map_error_at(err, None)
}

/// [`map_error`], naming `server` when it could not be reached or did not answer.
pub fn map_error_at(err: kube::Error, server: Option<&str>) -> ClusterError {
    match err {
        kube::Error::Api(status) => {
            let kind = match (status.code, status.reason.as_str()) {
                (404, _) => ClusterErrorKind::NotFound,
                (409, "AlreadyExists") => ClusterErrorKind::AlreadyExists,
                (409, _) => ClusterErrorKind::Conflict,
                (403, _) => ClusterErrorKind::Forbidden,
                _ => ClusterErrorKind::Other,
            };
            let message = if status.message.is_empty() {
                format!("API server answered HTTP {}", status.code)
            } else {
                crate::limits::elide(&status.message).into_owned()
            };
            ClusterError::new(kind, message)
        }
        other => ClusterError::new(
            ClusterErrorKind::Other,
            super::errors::describe_at(&other, server),
        ),
    }
}

async fn get_opt<K>(
    cluster: &KubeCluster,
    api: Api<K>,
    name: &str,
) -> Result<Option<K>, ClusterError>
where
    K: Clone + DeserializeOwned + std::fmt::Debug,
{
    api.get_opt(name).await.map_err(|e| cluster.error(e))
}

async fn apply_typed<K>(
    cluster: &KubeCluster,
    api: Api<K>,
    object: &K,
    name: &str,
    dry_run: bool,
) -> Result<K, ClusterError>
where
    K: Clone + DeserializeOwned + Serialize + std::fmt::Debug,
{
    let mut params = PatchParams::apply(FIELD_MANAGER).force();
    params.dry_run = dry_run;
    api.patch(name, &params, &Patch::Apply(object))
        .await
        .map_err(|e| cluster.error(e))
}

async fn create_typed<K>(cluster: &KubeCluster, api: Api<K>, object: &K) -> Result<K, ClusterError>
where
    K: Clone + DeserializeOwned + Serialize + std::fmt::Debug,
{
    api.create(&PostParams::default(), object)
        .await
        .map_err(|e| cluster.error(e))
}

impl ClusterApi for KubeCluster {
    fn get_seinode<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
    ) -> ClusterFuture<'a, Option<SeiNode>> {
        Box::pin(async move { get_opt(self, self.api::<SeiNode>(namespace), name).await })
    }

    fn patch_seinode_status<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
        patch: &'a StatusPatch,
    ) -> ClusterFuture<'a, SeiNode> {
        Box::pin(async move {
            self.api::<SeiNode>(namespace)
                .patch_status(name, &PatchParams::default(), &Patch::Merge(patch.body()))
                .await
                .map_err(|e| self.error(e))
        })
    }

    fn patch_seinode<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
        patch: &'a serde_json::Value,
    ) -> ClusterFuture<'a, SeiNode> {
        Box::pin(async move {
            self.api::<SeiNode>(namespace)
                .patch(
                    name,
                    &PatchParams {
                        field_manager: Some(CONSOLE_FIELD_MANAGER.into()),
                        ..PatchParams::default()
                    },
                    &Patch::Merge(patch),
                )
                .await
                .map_err(|e| self.error(e))
        })
    }

    fn create_seinode<'a>(&'a self, node: &'a SeiNode) -> ClusterFuture<'a, SeiNode> {
        Box::pin(async move {
            let namespace = node.metadata.namespace.as_deref().unwrap_or_default();
            let params = PostParams {
                field_manager: Some(CONSOLE_FIELD_MANAGER.into()),
                ..PostParams::default()
            };
            self.api::<SeiNode>(namespace)
                .create(&params, node)
                .await
                .map_err(|e| self.error(e))
        })
    }

    fn list_seinodes<'a>(
        &'a self,
        namespace: &'a str,
        label_selector: Option<&'a str>,
    ) -> ClusterFuture<'a, Vec<SeiNode>> {
        Box::pin(async move {
            let mut params = ListParams::default();
            if let Some(selector) = label_selector {
                params = params.labels(selector);
            }
            self.api::<SeiNode>(namespace)
                .list(&params)
                .await
                .map(|list| list.items)
                .map_err(|e| self.error(e))
        })
    }

    fn service_account_exists<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
    ) -> ClusterFuture<'a, bool> {
        Box::pin(async move {
            let found = get_opt::<k8s_openapi::api::core::v1::ServiceAccount>(
                self,
                self.api(namespace),
                name,
            )
            .await?;
            Ok(found.is_some())
        })
    }

    fn list_events_for<'a>(
        &'a self,
        namespace: &'a str,
        kind: ObjectKind,
        name: &'a str,
    ) -> ClusterFuture<'a, Vec<Event>> {
        Box::pin(async move {
            let fields = format!(
                "involvedObject.kind={},involvedObject.name={name}",
                kind.kind_name()
            );
            let list = self
                .api::<Event>(namespace)
                .list(&ListParams::default().fields(&fields))
                .await
                .map_err(|e| self.error(e))?;
            Ok(list.items)
        })
    }

    fn record_event<'a>(&'a self, event: &'a Event) -> ClusterFuture<'a, ()> {
        Box::pin(async move {
            let namespace = event.metadata.namespace.as_deref().unwrap_or_default();
            self.api::<Event>(namespace)
                .create(&PostParams::default(), event)
                .await
                .map(|_| ())
                .map_err(|e| self.error(e))
        })
    }

    fn apply<'a>(&'a self, object: &'a ClusterObject) -> ClusterFuture<'a, ClusterObject> {
        Box::pin(self.apply_object(object, false))
    }

    fn apply_dry_run<'a>(&'a self, object: &'a ClusterObject) -> ClusterFuture<'a, ClusterObject> {
        Box::pin(self.apply_object(object, true))
    }

    fn create<'a>(&'a self, object: &'a ClusterObject) -> ClusterFuture<'a, ClusterObject> {
        Box::pin(async move {
            let ns = object.namespace();
            Ok(match object {
                ClusterObject::StatefulSet(o) => {
                    ClusterObject::StatefulSet(create_typed(self, self.api(ns), o).await?)
                }
                ClusterObject::Service(o) => {
                    ClusterObject::Service(create_typed(self, self.api(ns), o).await?)
                }
                ClusterObject::PersistentVolumeClaim(o) => {
                    ClusterObject::PersistentVolumeClaim(create_typed(self, self.api(ns), o).await?)
                }
                ClusterObject::ConfigMap(o) => {
                    ClusterObject::ConfigMap(create_typed(self, self.api(ns), o).await?)
                }
                ClusterObject::Job(o) => {
                    ClusterObject::Job(create_typed(self, self.api(ns), o).await?)
                }
                ClusterObject::Secret(o) => {
                    ClusterObject::Secret(create_typed(self, self.api(ns), o).await?)
                }
                ClusterObject::Pod(o) => {
                    ClusterObject::Pod(create_typed(self, self.api(ns), o).await?)
                }
            })
        })
    }

    fn get<'a>(
        &'a self,
        kind: ObjectKind,
        namespace: &'a str,
        name: &'a str,
    ) -> ClusterFuture<'a, Option<ClusterObject>> {
        Box::pin(async move {
            let ns = namespace;
            Ok(match kind {
                ObjectKind::StatefulSet => get_opt::<StatefulSet>(self, self.api(ns), name)
                    .await?
                    .map(ClusterObject::StatefulSet),
                ObjectKind::Service => get_opt::<Service>(self, self.api(ns), name)
                    .await?
                    .map(ClusterObject::Service),
                ObjectKind::PersistentVolumeClaim => {
                    get_opt::<PersistentVolumeClaim>(self, self.api(ns), name)
                        .await?
                        .map(ClusterObject::PersistentVolumeClaim)
                }
                ObjectKind::ConfigMap => get_opt::<ConfigMap>(self, self.api(ns), name)
                    .await?
                    .map(ClusterObject::ConfigMap),
                ObjectKind::Job => get_opt::<Job>(self, self.api(ns), name)
                    .await?
                    .map(ClusterObject::Job),
                ObjectKind::Secret => get_opt::<Secret>(self, self.api(ns), name)
                    .await?
                    .map(ClusterObject::Secret),
                ObjectKind::Pod => get_opt::<Pod>(self, self.api(ns), name)
                    .await?
                    .map(ClusterObject::Pod),
            })
        })
    }

    fn get_persistent_volume<'a>(
        &'a self,
        name: &'a str,
    ) -> ClusterFuture<'a, Option<PersistentVolume>> {
        Box::pin(async move {
            get_opt(
                self,
                Api::<PersistentVolume>::all(self.client.clone()),
                name,
            )
            .await
        })
    }

    fn list_pods<'a>(
        &'a self,
        namespace: &'a str,
        selector: &'a BTreeMap<String, String>,
    ) -> ClusterFuture<'a, Vec<Pod>> {
        Box::pin(async move {
            let labels = selector
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(",");
            let list = self
                .api::<Pod>(namespace)
                .list(&ListParams::default().labels(&labels))
                .await
                .map_err(|e| self.error(e))?;
            Ok(list.items)
        })
    }

    fn delete<'a>(
        &'a self,
        kind: ObjectKind,
        namespace: &'a str,
        name: &'a str,
        propagation: Propagation,
    ) -> ClusterFuture<'a, bool> {
        Box::pin(async move {
            let params = match propagation {
                Propagation::Default => DeleteParams::default(),
                Propagation::Foreground => DeleteParams {
                    propagation_policy: Some(PropagationPolicy::Foreground),
                    ..DeleteParams::default()
                },
            };
            let ns = namespace;
            let result = match kind {
                ObjectKind::StatefulSet => self
                    .api::<StatefulSet>(ns)
                    .delete(name, &params)
                    .await
                    .map(|_| ()),
                ObjectKind::Service => self
                    .api::<Service>(ns)
                    .delete(name, &params)
                    .await
                    .map(|_| ()),
                ObjectKind::PersistentVolumeClaim => self
                    .api::<PersistentVolumeClaim>(ns)
                    .delete(name, &params)
                    .await
                    .map(|_| ()),
                ObjectKind::ConfigMap => self
                    .api::<ConfigMap>(ns)
                    .delete(name, &params)
                    .await
                    .map(|_| ()),
                ObjectKind::Job => self.api::<Job>(ns).delete(name, &params).await.map(|_| ()),
                ObjectKind::Secret => self
                    .api::<Secret>(ns)
                    .delete(name, &params)
                    .await
                    .map(|_| ()),
                ObjectKind::Pod => self.api::<Pod>(ns).delete(name, &params).await.map(|_| ()),
            };
            match result.map_err(|e| self.error(e)) {
                Ok(()) => Ok(true),
                Err(err) if err.is_not_found() => Ok(false),
                Err(err) => Err(err),
            }
        })
    }

    fn create_event<'a>(&'a self, event: &'a NodeEvent) -> ClusterFuture<'a, ()> {
        Box::pin(async move {
            let now = jiff::Timestamp::now();
            let body = Event {
                metadata: ObjectMeta {
                    // The recorder's naming: `<object>.<unique suffix>`.
                    name: Some(format!("{}.{:x}", event.node, now.as_nanosecond())),
                    namespace: Some(event.namespace.clone()),
                    ..ObjectMeta::default()
                },
                involved_object: ObjectReference {
                    api_version: Some(crate::api::API_VERSION.into()),
                    kind: Some(crate::api::KIND.into()),
                    name: Some(event.node.clone()),
                    namespace: Some(event.namespace.clone()),
                    uid: Some(event.node_uid.clone()).filter(|u| !u.is_empty()),
                    ..ObjectReference::default()
                },
                reason: Some(event.reason.clone()),
                message: Some(event.message.clone()),
                type_: Some(event.event_type.as_str().into()),
                source: Some(EventSource {
                    component: Some(EVENT_COMPONENT.into()),
                    host: None,
                }),
                reporting_component: Some(EVENT_COMPONENT.into()),
                first_timestamp: Some(Time(now)),
                last_timestamp: Some(Time(now)),
                event_time: None::<MicroTime>,
                count: Some(1),
                ..Event::default()
            };
            create_typed(self, self.api::<Event>(&event.namespace), &body)
                .await
                .map(|_| ())
        })
    }

    fn get_lease<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
    ) -> ClusterFuture<'a, Option<Lease>> {
        Box::pin(async move { get_opt(self, self.api::<Lease>(namespace), name).await })
    }

    fn create_lease<'a>(&'a self, lease: &'a Lease) -> ClusterFuture<'a, Lease> {
        Box::pin(async move {
            let ns = lease.metadata.namespace.as_deref().unwrap_or("default");
            create_typed(self, self.api::<Lease>(ns), lease).await
        })
    }

    fn replace_lease<'a>(&'a self, lease: &'a Lease) -> ClusterFuture<'a, Lease> {
        Box::pin(async move {
            let ns = lease.metadata.namespace.as_deref().unwrap_or("default");
            let name = lease.metadata.name.as_deref().unwrap_or("");
            self.api::<Lease>(ns)
                .replace(name, &PostParams::default(), lease)
                .await
                .map_err(|e| self.error(e))
        })
    }

    fn list_leases<'a>(
        &'a self,
        namespace: &'a str,
        label_selector: &'a str,
    ) -> ClusterFuture<'a, Vec<Lease>> {
        Box::pin(async move {
            self.api::<Lease>(namespace)
                .list(&ListParams::default().labels(label_selector))
                .await
                .map(|list| list.items)
                .map_err(|e| self.error(e))
        })
    }

    fn delete_lease<'a>(&'a self, namespace: &'a str, name: &'a str) -> ClusterFuture<'a, bool> {
        Box::pin(async move {
            match self
                .api::<Lease>(namespace)
                .delete(name, &DeleteParams::default())
                .await
                .map_err(|e| self.error(e))
            {
                Ok(_) => Ok(true),
                Err(err) if err.is_not_found() => Ok(false),
                Err(err) => Err(err),
            }
        })
    }

    fn get_seinode_crd(&self) -> ClusterFuture<'_, Option<serde_json::Value>> {
        Box::pin(async move {
            use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
            // Read untyped: the schema as the API server stores it, every key kept.
            let resource = kube::api::ApiResource::erase::<CustomResourceDefinition>(&());
            let api: Api<kube::api::DynamicObject> = Api::all_with(self.client.clone(), &resource);
            let name = format!("{}.{}", crate::api::PLURAL, crate::api::GROUP);
            match api.get_opt(&name).await.map_err(|e| self.error(e))? {
                Some(crd) => serde_json::to_value(crd)
                    .map(Some)
                    .map_err(|e| ClusterError::new(ClusterErrorKind::Other, e.to_string())),
                None => Ok(None),
            }
        })
    }
}

#[cfg(test)]
mod tests;

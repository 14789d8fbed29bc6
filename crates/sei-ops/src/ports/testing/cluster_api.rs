//! The fake API server's [`ClusterApi`] calls: each recorded, checked against the stored
//! resourceVersion and answered from [`FakeState`].
use super::*;

impl ClusterApi for FakeCluster {
    fn get_seinode_crd(&self) -> ClusterFuture<'_, Option<Value>> {
        Box::pin(async move {
            self.record("get customresourcedefinitions seinodes.sei.io".to_owned())?;
            if let Some(crd) = lock(&self.state).crd.clone() {
                return Ok(Some(crd));
            }
            crate::api::schema::embedded_crd()
                .map(|crd| Some(crd.clone()))
                .map_err(|e| ClusterError::new(ClusterErrorKind::Other, e.to_string()))
        })
    }

    fn get_seinode<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
    ) -> ClusterFuture<'a, Option<SeiNode>> {
        Box::pin(async move {
            self.record(format!("get seinodes {name}"))?;
            Ok(self.node(namespace, name))
        })
    }

    fn patch_seinode_status<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
        patch: &'a StatusPatch,
    ) -> ClusterFuture<'a, SeiNode> {
        Box::pin(async move {
            self.record(format!("patch seinodes/status {name}"))?;
            let mut s = lock(&self.state);
            if s.interfering_writes > 0 {
                // Another writer lands first: it appends a peer and bumps the resourceVersion.
                s.interfering_writes -= 1;
                s.next_version += 1;
                let version = s.next_version.to_string();
                if let Some(node) = s.nodes.get_mut(&(namespace.to_owned(), name.to_owned())) {
                    let status = node.status.get_or_insert_with(Default::default);
                    let peers = status.resolved_peers.get_or_insert_with(Vec::new);
                    peers.push(format!("writer-{}", peers.len()));
                    node.metadata.resource_version = Some(version);
                }
            }
            s.next_version += 1;
            let version = s.next_version.to_string();
            let node = s
                .nodes
                .get_mut(&(namespace.to_owned(), name.to_owned()))
                .ok_or_else(|| not_found("seinodes.sei.io", name))?;
            if node.metadata.resource_version.as_deref() != Some(patch.resource_version.as_str()) {
                return Err(ClusterError::new(
                    ClusterErrorKind::Conflict,
                    format!(
                        "Operation cannot be fulfilled on seinodes.sei.io \"{name}\": the object has been modified; please apply your changes to the latest version and try again"
                    ),
                ));
            }
            let mut status = serde_json::to_value(node.status.clone().unwrap_or_default())
                .map_err(|e| ClusterError::new(ClusterErrorKind::Other, e.to_string()))?;
            merge_patch(&mut status, &patch.status);
            node.status = Some(
                serde_json::from_value(status)
                    .map_err(|e| ClusterError::new(ClusterErrorKind::Other, e.to_string()))?,
            );
            node.metadata.resource_version = Some(version);
            let node = node.clone();
            if let Some(plan) = node.status.as_ref().and_then(|st| st.plan.as_ref())
                && !s.plans_written.iter().any(|p| p.id == plan.id)
            {
                s.plans_written.push(plan.clone());
            }
            Ok(node)
        })
    }

    fn apply<'a>(&'a self, object: &'a ClusterObject) -> ClusterFuture<'a, ClusterObject> {
        Box::pin(async move {
            self.record(format!(
                "apply {} {}",
                object.kind().plural(),
                object.name()
            ))?;
            let mut s = lock(&self.state);
            let key = (
                object.kind(),
                object.namespace().to_owned(),
                object.name().to_owned(),
            );
            let mut stored = object.clone();
            if let Some(existing) = s.objects.get(&key) {
                stored.metadata_mut().uid = existing.metadata().uid.clone();
                if let (ClusterObject::StatefulSet(new), ClusterObject::StatefulSet(old)) =
                    (&mut stored, existing)
                {
                    new.metadata.generation = old.metadata.generation.map(|g| g + 1);
                }
            } else if let ClusterObject::StatefulSet(new) = &mut stored {
                new.metadata.generation = Some(1);
            }
            if let ClusterObject::StatefulSet(sts) = &mut stored {
                converge_statefulset(sts);
            }
            Self::stamp(&mut s, stored.metadata_mut());
            s.objects.insert(key, stored.clone());
            Ok(stored)
        })
    }

    /// What `apply` would store, with the live object's uid and resourceVersion; nothing stored.
    fn apply_dry_run<'a>(&'a self, object: &'a ClusterObject) -> ClusterFuture<'a, ClusterObject> {
        Box::pin(async move {
            self.record(format!(
                "dry-run apply {} {}",
                object.kind().plural(),
                object.name()
            ))?;
            let s = lock(&self.state);
            let key = (
                object.kind(),
                object.namespace().to_owned(),
                object.name().to_owned(),
            );
            let mut result = object.clone();
            if let Some(existing) = s.objects.get(&key) {
                result.metadata_mut().uid = existing.metadata().uid.clone();
                result.metadata_mut().resource_version =
                    existing.metadata().resource_version.clone();
            }
            if let ClusterObject::StatefulSet(sts) = &mut result {
                converge_statefulset(sts);
            }
            Ok(result)
        })
    }

    fn create<'a>(&'a self, object: &'a ClusterObject) -> ClusterFuture<'a, ClusterObject> {
        Box::pin(async move {
            self.record(format!(
                "create {} {}",
                object.kind().plural(),
                object.name()
            ))?;
            let mut s = lock(&self.state);
            let key = (
                object.kind(),
                object.namespace().to_owned(),
                object.name().to_owned(),
            );
            if s.objects.contains_key(&key) {
                return Err(ClusterError::new(
                    ClusterErrorKind::AlreadyExists,
                    format!(
                        "{} \"{}\" already exists",
                        object.kind().plural(),
                        object.name()
                    ),
                ));
            }
            let mut stored = object.clone();
            Self::stamp(&mut s, stored.metadata_mut());
            s.objects.insert(key, stored.clone());
            Ok(stored)
        })
    }

    fn get<'a>(
        &'a self,
        kind: ObjectKind,
        namespace: &'a str,
        name: &'a str,
    ) -> ClusterFuture<'a, Option<ClusterObject>> {
        Box::pin(async move {
            self.record(format!("get {} {name}", kind.plural()))?;
            Ok(self.object(kind, namespace, name))
        })
    }

    fn get_persistent_volume<'a>(
        &'a self,
        name: &'a str,
    ) -> ClusterFuture<'a, Option<PersistentVolume>> {
        Box::pin(async move {
            self.record(format!("get persistentvolumes {name}"))?;
            Ok(lock(&self.state).volumes.get(name).cloned())
        })
    }

    fn list_pods<'a>(
        &'a self,
        namespace: &'a str,
        selector: &'a BTreeMap<String, String>,
    ) -> ClusterFuture<'a, Vec<Pod>> {
        Box::pin(async move {
            self.record("list pods".to_owned())?;
            let s = lock(&self.state);
            Ok(s.objects
                .values()
                .filter_map(|o| match o {
                    ClusterObject::Pod(pod) if o.namespace() == namespace => Some(pod.clone()),
                    _ => None,
                })
                .filter(|pod| {
                    let labels = pod.metadata.labels.clone().unwrap_or_default();
                    selector.iter().all(|(k, v)| labels.get(k) == Some(v))
                })
                .collect())
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
            let how = match propagation {
                Propagation::Default => "",
                Propagation::Foreground => " (foreground)",
            };
            self.record(format!("delete {} {name}{how}", kind.plural()))?;
            Ok(lock(&self.state)
                .objects
                .remove(&(kind, namespace.to_owned(), name.to_owned()))
                .is_some())
        })
    }

    fn patch_seinode<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
        patch: &'a Value,
    ) -> ClusterFuture<'a, SeiNode> {
        Box::pin(async move {
            self.record(format!("patch seinodes {name}"))?;
            let mut s = lock(&self.state);
            let key = (namespace.to_owned(), name.to_owned());
            let stored = s
                .nodes
                .get(&key)
                .ok_or_else(|| not_found("seinodes.sei.io", name))?;
            let mut value = serde_json::to_value(stored).map_err(|e| other(e.to_string()))?;
            merge_patch(&mut value, patch);
            let mut node: SeiNode =
                serde_json::from_value(value).map_err(|e| other(e.to_string()))?;
            s.next_version += 1;
            node.metadata.resource_version = Some(s.next_version.to_string());
            s.nodes.insert(key, node.clone());
            Ok(node)
        })
    }

    fn create_seinode<'a>(&'a self, node: &'a SeiNode) -> ClusterFuture<'a, SeiNode> {
        Box::pin(async move {
            self.record(format!("create seinodes {}", node.name()))?;
            let mut s = lock(&self.state);
            let namespace = node.metadata.namespace.clone().unwrap_or_default();
            let key = (namespace, node.name().to_owned());
            if s.nodes.contains_key(&key) {
                return Err(ClusterError::new(
                    ClusterErrorKind::AlreadyExists,
                    format!("seinodes.sei.io \"{}\" already exists", node.name()),
                ));
            }
            let mut created = node.clone();
            Self::stamp(&mut s, &mut created.metadata);
            s.nodes.insert(key, created.clone());
            Ok(created)
        })
    }

    fn list_seinodes<'a>(
        &'a self,
        namespace: &'a str,
        label_selector: Option<&'a str>,
    ) -> ClusterFuture<'a, Vec<SeiNode>> {
        Box::pin(async move {
            self.record(format!("list seinodes {}", label_selector.unwrap_or("")))?;
            // Equality selectors (`k=v,k2=v2`) are all the tests use.
            let wanted: Vec<(&str, &str)> = label_selector
                .unwrap_or("")
                .split(',')
                .filter_map(|term| term.split_once('='))
                .collect();
            let s = lock(&self.state);
            Ok(s.nodes
                .iter()
                .filter(|((ns, _), _)| ns == namespace)
                .map(|(_, node)| node)
                .filter(|node| {
                    let labels = node.metadata.labels.clone().unwrap_or_default();
                    wanted
                        .iter()
                        .all(|(k, v)| labels.get(*k).map(String::as_str) == Some(*v))
                })
                .cloned()
                .collect())
        })
    }

    fn service_account_exists<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
    ) -> ClusterFuture<'a, bool> {
        Box::pin(async move {
            self.record(format!("get serviceaccounts {name}"))?;
            let key = (namespace.to_owned(), name.to_owned());
            Ok(!lock(&self.state).missing_service_accounts.contains(&key))
        })
    }

    fn list_events_for<'a>(
        &'a self,
        namespace: &'a str,
        kind: ObjectKind,
        name: &'a str,
    ) -> ClusterFuture<'a, Vec<Event>> {
        Box::pin(async move {
            self.record(format!("list events {} {name}", kind.kind_name()))?;
            Ok(lock(&self.state)
                .recorded_events
                .iter()
                .filter(|e| e.metadata.namespace.as_deref() == Some(namespace))
                .filter(|e| {
                    e.involved_object.kind.as_deref() == Some(kind.kind_name())
                        && e.involved_object.name.as_deref() == Some(name)
                })
                .cloned()
                .collect())
        })
    }

    fn record_event<'a>(&'a self, event: &'a Event) -> ClusterFuture<'a, ()> {
        Box::pin(async move {
            let reason = event.reason.clone().unwrap_or_default();
            self.record(format!("create events {reason}"))?;
            let mut s = lock(&self.state);
            s.recorded_events.push(event.clone());
            Ok(())
        })
    }

    fn create_event<'a>(&'a self, event: &'a NodeEvent) -> ClusterFuture<'a, ()> {
        Box::pin(async move {
            self.record(format!("create events {}", event.reason))?;
            lock(&self.state).events.push(event.clone());
            Ok(())
        })
    }

    fn get_lease<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
    ) -> ClusterFuture<'a, Option<Lease>> {
        Box::pin(async move {
            self.record(format!("get leases {name}"))?;
            Ok(lock(&self.state)
                .leases
                .get(&(namespace.to_owned(), name.to_owned()))
                .cloned())
        })
    }

    fn create_lease<'a>(&'a self, lease: &'a Lease) -> ClusterFuture<'a, Lease> {
        Box::pin(async move {
            let name = lease.metadata.name.clone().unwrap_or_default();
            let ns = lease.metadata.namespace.clone().unwrap_or_default();
            self.record(format!("create leases {name}"))?;
            let mut s = lock(&self.state);
            if s.leases.contains_key(&(ns.clone(), name.clone())) {
                return Err(ClusterError::new(
                    ClusterErrorKind::AlreadyExists,
                    format!("leases.coordination.k8s.io \"{name}\" already exists"),
                ));
            }
            let mut stored = lease.clone();
            Self::stamp(&mut s, &mut stored.metadata);
            s.leases.insert((ns, name), stored.clone());
            Ok(stored)
        })
    }

    fn replace_lease<'a>(&'a self, lease: &'a Lease) -> ClusterFuture<'a, Lease> {
        Box::pin(async move {
            let name = lease.metadata.name.clone().unwrap_or_default();
            let ns = lease.metadata.namespace.clone().unwrap_or_default();
            self.record(format!("replace leases {name}"))?;
            let mut s = lock(&self.state);
            let current = s
                .leases
                .get(&(ns.clone(), name.clone()))
                .ok_or_else(|| not_found("leases.coordination.k8s.io", &name))?;
            if current.metadata.resource_version != lease.metadata.resource_version {
                return Err(ClusterError::new(
                    ClusterErrorKind::Conflict,
                    format!(
                        "Operation cannot be fulfilled on leases.coordination.k8s.io \"{name}\": the object has been modified"
                    ),
                ));
            }
            let mut stored = lease.clone();
            Self::stamp(&mut s, &mut stored.metadata);
            s.leases.insert((ns, name), stored.clone());
            Ok(stored)
        })
    }

    fn list_leases<'a>(
        &'a self,
        namespace: &'a str,
        label_selector: &'a str,
    ) -> ClusterFuture<'a, Vec<Lease>> {
        Box::pin(async move {
            self.record(format!("list leases {label_selector}"))?;
            let wanted: Vec<(&str, &str)> = label_selector
                .split(',')
                .filter_map(|term| term.split_once('='))
                .collect();
            let s = lock(&self.state);
            Ok(s.leases
                .iter()
                .filter(|((ns, _), _)| ns == namespace)
                .map(|(_, lease)| lease)
                .filter(|lease| {
                    let labels = lease.metadata.labels.clone().unwrap_or_default();
                    wanted
                        .iter()
                        .all(|(k, v)| labels.get(*k).map(String::as_str) == Some(*v))
                })
                .cloned()
                .collect())
        })
    }

    fn delete_lease<'a>(&'a self, namespace: &'a str, name: &'a str) -> ClusterFuture<'a, bool> {
        Box::pin(async move {
            self.record(format!("delete leases {name}"))?;
            Ok(lock(&self.state)
                .leases
                .remove(&(namespace.to_owned(), name.to_owned()))
                .is_some())
        })
    }
}

/// Plays the StatefulSet controller instantly: observed, rolled out, at the update revision.
fn converge_statefulset(sts: &mut StatefulSet) {
    let generation = sts.metadata.generation.unwrap_or(1);
    let replicas = sts.spec.replicas.unwrap_or(1);
    let revision = format!(
        "{}-rev{generation}",
        sts.metadata.name.as_deref().unwrap_or("")
    );
    sts.status = Some(k8s_openapi::api::apps::v1::StatefulSetStatus {
        observed_generation: Some(generation),
        replicas,
        updated_replicas: Some(replicas),
        current_revision: Some(revision.clone()),
        update_revision: Some(revision),
        ..Default::default()
    });
}

fn other(message: String) -> ClusterError {
    ClusterError::new(ClusterErrorKind::Other, message)
}

fn not_found(kind: &str, name: &str) -> ClusterError {
    ClusterError::new(
        ClusterErrorKind::NotFound,
        format!("{kind} \"{name}\" not found"),
    )
}

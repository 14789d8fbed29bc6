//! Validator and seed key material: Secret volumes, mounts, keyring env, and the operator-keyring
//! containment guard (§5.4, §5.11).
use k8s_openapi::api::core::v1::{
    Container, EnvVar, EnvVarSource, KeyToPath, PodSpec, SecretKeySelector, SecretVolumeSource,
    Volume, VolumeMount,
};

use super::RenderError;
use super::omit_empty;
use crate::api::{SecretOperatorKeyringSource, SeiNode};
use crate::platform::{DATA_DIR, go_quote};

pub(super) const SIGNING_KEY_VOLUME: &str = "signing-key";
pub(super) const NODE_KEY_VOLUME: &str = "node-key";
pub(super) const OPERATOR_KEYRING_VOLUME: &str = "operator-keyring";
const PRIV_VALIDATOR_KEY: &str = "priv_validator_key.json";
const NODE_KEY: &str = "node_key.json";
/// 0400: readable by the non-root owner only.
const SECRET_MODE: i32 = 0o400;

/// The validator's signing-key Secret name, when configured.
pub(super) fn signing_key_secret(node: &SeiNode) -> Option<&str> {
    node.spec
        .validator
        .as_ref()?
        .signing_key
        .as_ref()?
        .secret
        .as_ref()
        .map(|s| s.secret_name.as_str())
}

/// The node-key Secret name (validator's, else seed's), when configured.
pub(super) fn node_key_secret(node: &SeiNode) -> Option<&str> {
    node.spec.node_key_secret().map(|s| s.secret_name.as_str())
}

/// The operator keyring Secret source (validators only).
pub(super) fn operator_keyring(node: &SeiNode) -> Option<&SecretOperatorKeyringSource> {
    node.spec
        .validator
        .as_ref()?
        .operator_keyring
        .as_ref()?
        .secret
        .as_ref()
}

/// Whether the node opted into mounting the keyring on seid main (`.secret.seidMount`).
pub(super) fn seid_mount_enabled(node: &SeiNode) -> bool {
    operator_keyring(node).is_some_and(|s| s.seid_mount == Some(true))
}

fn secret_volume(name: &str, secret: &str, item: Option<&str>) -> Volume {
    Volume {
        name: name.into(),
        secret: Some(SecretVolumeSource {
            secret_name: Some(secret.into()),
            default_mode: Some(SECRET_MODE),
            items: item.map(|key| {
                vec![KeyToPath {
                    key: key.into(),
                    path: key.into(),
                    ..Default::default()
                }]
            }),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// `signing-key`, `node-key`, `operator-keyring` volumes, each only when configured.
pub(super) fn key_volumes(node: &SeiNode) -> Vec<Volume> {
    let mut volumes = Vec::new();
    if let Some(secret) = signing_key_secret(node) {
        volumes.push(secret_volume(
            SIGNING_KEY_VOLUME,
            secret,
            Some(PRIV_VALIDATOR_KEY),
        ));
    }
    if let Some(secret) = node_key_secret(node) {
        volumes.push(secret_volume(NODE_KEY_VOLUME, secret, Some(NODE_KEY)));
    }
    if let Some(src) = operator_keyring(node) {
        volumes.push(secret_volume(
            OPERATOR_KEYRING_VOLUME,
            &src.secret_name,
            None,
        ));
    }
    volumes
}

fn read_only_mount(name: &str, path: String, sub_path: Option<&str>) -> VolumeMount {
    VolumeMount {
        name: name.into(),
        mount_path: path,
        sub_path: sub_path.map(str::to_string),
        read_only: Some(true),
        ..Default::default()
    }
}

/// seid's subPath mounts of the signing key and node key (pinned at pod start on purpose).
pub(super) fn seid_key_mounts(node: &SeiNode) -> Vec<VolumeMount> {
    let mut mounts = Vec::new();
    if signing_key_secret(node).is_some() {
        let path = format!("{DATA_DIR}/config/{PRIV_VALIDATOR_KEY}");
        mounts.push(read_only_mount(
            SIGNING_KEY_VOLUME,
            path,
            Some(PRIV_VALIDATOR_KEY),
        ));
    }
    if node_key_secret(node).is_some() {
        let path = format!("{DATA_DIR}/config/{NODE_KEY}");
        mounts.push(read_only_mount(NODE_KEY_VOLUME, path, Some(NODE_KEY)));
    }
    mounts
}

/// The keyring directory mount at `<data>/keyring-file`, when the Secret keyring is set.
pub(super) fn operator_keyring_mounts(node: &SeiNode) -> Vec<VolumeMount> {
    match operator_keyring(node) {
        Some(_) => vec![read_only_mount(
            OPERATOR_KEYRING_VOLUME,
            format!("{DATA_DIR}/keyring-file"),
            None,
        )],
        None => Vec::new(),
    }
}

fn plain_env(name: &str, value: &str) -> EnvVar {
    EnvVar {
        name: name.into(),
        value: omit_empty(value),
        ..Default::default()
    }
}

/// Keyring env: none for non-validators; test backend without the Secret; file backend plus the
/// passphrase `secretKeyRef` with it.
pub(super) fn operator_keyring_env(node: &SeiNode) -> Vec<EnvVar> {
    if node.spec.validator.is_none() {
        return Vec::new();
    }
    match operator_keyring(node) {
        None => vec![
            plain_env("SEI_KEYRING_BACKEND", "test"),
            plain_env("SEI_KEYRING_DIR", DATA_DIR),
        ],
        Some(src) => vec![
            plain_env("SEI_KEYRING_BACKEND", "file"),
            plain_env("SEI_KEYRING_DIR", DATA_DIR),
            EnvVar {
                name: "SEI_KEYRING_PASSPHRASE".into(),
                value_from: Some(EnvVarSource {
                    secret_key_ref: Some(SecretKeySelector {
                        name: src.passphrase_secret_ref.secret_name.clone(),
                        key: src.passphrase_secret_ref.key.clone(),
                        optional: None,
                    }),
                    ..Default::default()
                }),
                ..Default::default()
            },
        ],
    }
}

/// Upstream `assertOperatorKeyringContainment`: with a Secret keyring, only `sei-sidecar` (and
/// `seid` when `seidMount`) may mount the keyring or reference its passphrase Secret.
pub(super) fn assert_operator_keyring_containment(
    node: &SeiNode,
    spec: &PodSpec,
) -> Result<(), RenderError> {
    let Some(src) = operator_keyring(node) else {
        return Ok(());
    };
    let passphrase = src.passphrase_secret_ref.secret_name.as_str();
    let seid_permitted = src.seid_mount == Some(true);
    let permitted = |name: &str| name == "sei-sidecar" || (seid_permitted && name == "seid");
    let (ns, name) = (node.namespace(), node.name());
    let check = |c: &Container| -> Result<(), RenderError> {
        for m in c.volume_mounts.iter().flatten() {
            if m.name == OPERATOR_KEYRING_VOLUME {
                return Err(RenderError::KeyringContainment(format!(
                    "pod-spec for {ns}/{name} mounts operator-keyring volume on container {}; operator-keyring is exclusively the sidecar's (plus seid main when .secret.seidMount is set) \u{2014} mounting elsewhere would collapse containment",
                    go_quote(&c.name)
                )));
            }
        }
        for ev in c.env.iter().flatten() {
            let secret = ev
                .value_from
                .as_ref()
                .and_then(|v| v.secret_key_ref.as_ref());
            if secret.is_some_and(|s| s.name == passphrase) {
                return Err(RenderError::KeyringContainment(format!(
                    "pod-spec for {ns}/{name} references operator-keyring passphrase Secret {} in env {} on container {}; the passphrase is exclusively the sidecar's (plus seid main when .secret.seidMount is set)",
                    go_quote(passphrase),
                    go_quote(&ev.name),
                    go_quote(&c.name)
                )));
            }
        }
        for ef in c.env_from.iter().flatten() {
            if ef.secret_ref.as_ref().is_some_and(|s| s.name == passphrase) {
                return Err(RenderError::KeyringContainment(format!(
                    "pod-spec for {ns}/{name} references operator-keyring passphrase Secret {} via envFrom on container {}; the passphrase is exclusively the sidecar's (plus seid main when .secret.seidMount is set)",
                    go_quote(passphrase),
                    go_quote(&c.name)
                )));
            }
        }
        Ok(())
    };
    let containers = spec.containers.iter();
    let init = spec.init_containers.iter().flatten();
    for c in containers.chain(init) {
        if !permitted(&c.name) {
            check(c)?;
        }
    }
    Ok(())
}

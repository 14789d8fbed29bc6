//! What the console ports, stated once: the upstream sei-k8s-controller commit the planners,
//! tasks and executor follow, the seictl and sei-config versions of that commit, and the
//! SHA-256 of the embedded CRD ([`super::schema::CRD_YAML`], `assets/crd/sei.io_seinodes.yaml`,
//! byte-identical to upstream's). `sei-console version`, `--version` and the console's `?` help
//! print [`ported_line`]; the digest is pinned by a test that hashes the embedded bytes, so the
//! asset cannot change without this line changing with it.

/// The sei-k8s-controller commit the port follows (`spec/planner.md`).
pub const CONTROLLER_COMMIT: &str = "2d670ad";
/// The seictl (sidecar) version of that commit.
pub const SEICTL_VERSION: &str = "v0.0.68";
/// The sei-config version of that commit.
pub const SEI_CONFIG_VERSION: &str = "v0.0.23";
/// SHA-256 of the embedded CRD manifest, hex (checked against the bytes by a test).
pub const CRD_SHA256: &str = "9faf742b59b008e7139159377732a875701ff5fd3271a6ca3a3f946f50af4e2a";

/// `ports sei-k8s-controller 2d670ad (seictl v0.0.68, sei-config v0.0.23), CRD
/// seinodes.sei.io sha256:9faf742b59b0`: one line, the same everywhere it is shown.
pub fn ported_line() -> String {
    format!(
        "ports sei-k8s-controller {CONTROLLER_COMMIT} (seictl {SEICTL_VERSION}, sei-config \
         {SEI_CONFIG_VERSION}), CRD {}.{} sha256:{}",
        super::PLURAL,
        super::GROUP,
        &CRD_SHA256[..12]
    )
}

#[cfg(test)]
mod tests {
    use sha2::{Digest, Sha256};

    use super::*;

    #[test]
    fn the_pinned_digest_is_the_embedded_crds() {
        let digest = Sha256::digest(super::super::schema::CRD_YAML.as_bytes());
        let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
        assert_eq!(
            hex, CRD_SHA256,
            "assets/crd changed: update CRD_SHA256 (and say which upstream commit it is)"
        );
    }

    #[test]
    fn the_ported_line_names_every_upstream_version() {
        assert_eq!(
            ported_line(),
            "ports sei-k8s-controller 2d670ad (seictl v0.0.68, sei-config v0.0.23), CRD \
             seinodes.sei.io sha256:9faf742b59b0"
        );
    }
}

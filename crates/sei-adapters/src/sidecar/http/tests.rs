use super::*;

fn target() -> SidecarTarget {
    SidecarTarget::new("ns", "seed-a")
}

#[test]
fn override_prefers_the_map_then_the_template() {
    let mut choice = SidecarOverride {
        template: Some("http://{pod}.{node}.{namespace}.example:8443".into()),
        ..Default::default()
    };
    assert_eq!(
        choice.base_url(&target()).as_deref(),
        Some("http://seed-a-0.seed-a.ns.example:8443")
    );
    choice
        .addresses
        .insert(target(), "http://127.0.0.1:17001".into());
    assert_eq!(
        choice.base_url(&target()).as_deref(),
        Some("http://127.0.0.1:17001")
    );
    assert_eq!(
        choice
            .base_url(&SidecarTarget::new("ns", "other"))
            .as_deref(),
        Some("http://other-0.other.ns.example:8443")
    );
}

#[test]
fn error_text_prefers_the_json_error_field_then_raw_text() {
    assert_eq!(
        error_text(br#"{"error":"task not found"}"#),
        "task not found"
    );
    assert_eq!(error_text(b"404 page not found\n"), "404 page not found");
    assert_eq!(error_text(b""), "(empty body)");
    assert_eq!(error_text("é".repeat(600).as_bytes()).chars().count(), 513);
}

#[test]
fn api_server_status_bodies_are_recognised() {
    let body = br#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"x-0\" not found","code":404}"#;
    assert_eq!(
        api_server_status_message(body).as_deref(),
        Some("pods \"x-0\" not found")
    );
    assert_eq!(
        api_server_status_message(br#"{"error":"task not found"}"#),
        None
    );
    assert_eq!(api_server_status_message(b""), None);
    let err = api_server_error(&target(), StatusCode::NOT_FOUND, "gone".into());
    assert!(err.is_transient());
    let err = api_server_error(&target(), StatusCode::FORBIDDEN, "no".into());
    assert!(!err.is_transient());
}

#[test]
fn missing_token_file_is_a_config_error() {
    let err = read_token(&target(), std::path::Path::new("/nonexistent/token"))
        .expect_err("no such file");
    assert!(
        err.to_string().contains("failed to read token file"),
        "{err}"
    );
    assert!(!err.is_transient());
}

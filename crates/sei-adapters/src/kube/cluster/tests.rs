use super::*;

fn api_error(code: u16, reason: &str, message: &str) -> kube::Error {
    let status: kube::core::Status = serde_json::from_value(serde_json::json!({
        "code": code, "reason": reason, "message": message
    }))
    .expect("status");
    kube::Error::Api(Box::new(status))
}

#[test]
fn api_errors_map_by_code_and_reason() {
    let e = map_error(api_error(404, "NotFound", "pods \"a\" not found"));
    assert_eq!(
        (e.kind, e.message.as_str()),
        (ClusterErrorKind::NotFound, "pods \"a\" not found")
    );
    assert_eq!(
        map_error(api_error(409, "AlreadyExists", "x")).kind,
        ClusterErrorKind::AlreadyExists
    );
    assert_eq!(
        map_error(api_error(409, "Conflict", "x")).kind,
        ClusterErrorKind::Conflict
    );
    assert_eq!(
        map_error(api_error(403, "Forbidden", "x")).kind,
        ClusterErrorKind::Forbidden
    );
    assert_eq!(
        map_error(api_error(500, "", "")).message,
        "API server answered HTTP 500"
    );
}

#[test]
fn a_server_that_cannot_be_reached_is_named_and_an_api_answer_is_not() {
    let unreachable = || kube::Error::Service(Box::new(std::io::Error::other("refused")));
    let named = map_error_at(unreachable(), Some("https://10.0.0.1:6443/"));
    assert_eq!(named.kind, ClusterErrorKind::Other);
    assert_eq!(
        named.message,
        "cannot reach the API server https://10.0.0.1:6443/: refused"
    );
    assert_eq!(
        map_error(unreachable()).message,
        "cannot reach the API server: refused"
    );
    let answered = map_error_at(
        api_error(404, "NotFound", "pods \"a\" not found"),
        Some("https://10.0.0.1:6443/"),
    );
    assert_eq!(answered.message, "pods \"a\" not found");
}

use super::*;

#[test]
fn several_contexts_parse_repeated_or_comma_separated() {
    let cli =
        parse_from(["sei-console", "get", "--context", "a", "--context", "b,c"]).expect("parses");
    assert_eq!(cli.global.context, ["a", "b", "c"]);
    assert_eq!(cli.global.one_context(), Some("a"));
}

#[test]
fn every_context_given_anywhere_is_used_in_order() {
    let contexts = |args: &[&str]| {
        parse_from(std::iter::once("sei-console").chain(args.iter().copied()))
            .expect("parses")
            .global
            .context
    };
    assert_eq!(
        contexts(&["get", "--context", "a", "--context", "b"]),
        ["a", "b"]
    );
    assert_eq!(
        contexts(&["--context", "a", "get", "--context", "b"]),
        ["a", "b"]
    );
    assert_eq!(
        contexts(&[
            "--context",
            "a,b",
            "rollout",
            "x",
            "--image",
            "i",
            "--context",
            "c"
        ]),
        ["a", "b", "c"]
    );
    assert_eq!(
        contexts(&[
            "rollout",
            "x",
            "--context",
            "a",
            "--image",
            "i",
            "--context",
            "b"
        ]),
        ["a", "b"]
    );
    assert_eq!(contexts(&["--context", "a", "journal"]), ["a"]);
    assert!(contexts(&["journal"]).is_empty());
}

#[test]
fn registered_action_commands_parse_with_their_flags_and_restart_offers_only_what_applies() {
    let cli = parse_from([
        "sei-console",
        "pause",
        "full-0",
        "-o",
        "json",
        "--yes",
        "--context",
        "a",
    ])
    .expect("parses");
    let Some(Command::Pause(pause)) = cli.command else {
        panic!("pause: {:?}", cli.command);
    };
    assert_eq!(pause.node, "full-0");
    assert_eq!(cli.global.context, ["a"]);
    let mut restart = command();
    let help = restart
        .find_subcommand_mut("restart")
        .expect("restart")
        .render_long_help()
        .to_string();
    for flag in ["--dry-run", "--yes", "--no-wait", "--output", "--timeout"] {
        assert!(help.contains(flag), "{flag}: {help}");
    }
    for flag in ["--executor", "--platform-config", "--controller-namespace"] {
        assert!(!help.contains(flag), "{flag}: {help}");
    }
    assert!(parse_from(["sei-console", "restart", "x", "--executor", "embedded"]).is_err());
}

#[test]
fn the_action_commands_are_listed_where_they_were_with_their_own_words() {
    let help = command().render_help().to_string();
    let at = |name: &str| {
        help.find(&format!("\n  {name} "))
            .unwrap_or_else(|| panic!("{name}: {help}"))
    };
    let order = [
        "plan", "exec", "rollout", "address", "seed", "journal", "restart", "pause", "resume",
    ];
    for pair in order.windows(2) {
        assert!(at(pair[0]) < at(pair[1]), "{pair:?}: {help}");
    }
    // No args struct's doc stands in for a command's about.
    assert!(!help.contains("Flags every action command takes"), "{help}");
    assert!(!help.contains("Arguments of"), "{help}");
}

#[test]
fn as_kubectl_sei_the_same_commands_parse_and_help_says_kubectl_sei() {
    let cli = parse_from([
        "/usr/local/bin/kubectl-sei",
        "get",
        "-n",
        "x",
        "--context",
        "a",
    ])
    .expect("parses");
    assert!(matches!(cli.command, Some(Command::Get(_))));
    assert_eq!(cli.global.context, ["a"]);
    let err = parse_from(["kubectl-sei", "get", "--help"]).expect_err("help");
    let help = err.to_string();
    assert!(help.contains("Usage: kubectl sei get [OPTIONS]"), "{help}");
    let err = parse_from(["sei-console", "get", "--help"]).expect_err("help");
    assert!(err.to_string().contains("Usage: sei-console get"), "{err}");
    assert_eq!(invoked_as("kubectl-sei-old".as_ref()), "sei-console");
}

#[test]
fn every_subcommand_takes_its_own_context_without_a_clash() {
    command().debug_assert();
}

#[test]
fn a_rollout_over_several_clusters_needs_across_clusters() {
    let parse = |extra: &[&str]| {
        let mut args = vec![
            "sei-console",
            "--context",
            "a,b",
            "rollout",
            "x",
            "--image",
            "i",
        ];
        args.extend(extra);
        let cli = parse_from(args).expect("parses");
        let Some(Command::Rollout(rollout)) = &cli.command else {
            panic!("rollout: {:?}", cli.command);
        };
        actions::rollout::clusters(&cli.global, rollout)
    };
    let refused = parse(&[]).expect_err("refused").to_string();
    assert_eq!(
        refused,
        "the rollout names 2 clusters (a, b): pass --across-clusters to roll out in each in \
         turn, or give one --context; nothing was changed"
    );
    let clusters = parse(&["--across-clusters"]).expect("asked");
    assert_eq!(clusters, [Some("a".to_owned()), Some("b".to_owned())]);
}

#[test]
fn a_one_cluster_command_refuses_several_contexts_in_one_line() {
    let cli = parse_from(["sei-console", "--context", "a,b", "get"]).expect("parses");
    let refused = cli.global.single_cluster("rollout").expect_err("refused");
    assert!(matches!(refused, CliError::BadInput(_)));
    let text = refused.to_string();
    assert!(text.starts_with("rollout works on one cluster"), "{text}");
    assert!(
        text.ends_with("given: a, b)") && !text.contains('\n'),
        "{text}"
    );
}

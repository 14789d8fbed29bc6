//! `SEI_CONSOLE_GIT_COMMIT` and `SEI_CONSOLE_BUILD_DATE` for `sei-console version` and
//! `--version` (read with `option_env!`; the commit is absent outside a git checkout):
//! environment variables for the compiler, no Rust written. Run again when HEAD or the branch it
//! points at moves, so the date is that of the build of this commit (`SOURCE_DATE_EPOCH` when
//! set, for reproducible builds).
fn main() {
    println!("cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH");
    let epoch = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .ok()
                .map(|d| d.as_secs())
        });
    if let Some(epoch) = epoch {
        println!(
            "cargo:rustc-env=SEI_CONSOLE_BUILD_DATE={}",
            civil_date(epoch)
        );
    }
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|out| out.status.success())
            .and_then(|out| String::from_utf8(out.stdout).ok())
            .map(|text| text.trim().to_owned())
    };
    // Without a rerun line cargo would run this for every change of the package.
    println!("cargo:rerun-if-changed=build.rs");
    let Some(commit) = git(&["rev-parse", "--short=12", "HEAD"]) else {
        return;
    };
    println!("cargo:rustc-env=SEI_CONSOLE_GIT_COMMIT={commit}");
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
    }
    if let (Some(common), Some(head)) = (
        git(&["rev-parse", "--git-common-dir"]),
        git(&["symbolic-ref", "-q", "HEAD"]),
    ) {
        println!("cargo:rerun-if-changed={common}/{head}");
        println!("cargo:rerun-if-changed={common}/packed-refs");
    }
}

/// `YYYY-MM-DD` (UTC) of a Unix time (Howard Hinnant's days-to-civil algorithm).
fn civil_date(epoch: u64) -> String {
    let z = (epoch / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

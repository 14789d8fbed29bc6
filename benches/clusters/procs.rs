//! The bench's other processes: children bound to the bench's life, and kubectl watches with
//! the SeiNodes they printed counted and their CPU read from /proc.
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The longest kubectl may take to print its initial list, or the updates after the churn.
pub const KUBECTL_DEADLINE: Duration = Duration::from_secs(300);

/// A child process killed (if still running) and reaped when dropped.
pub struct Reaped(pub Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `program`, killed by the kernel when this process ends in any way (SIGKILL included).
pub fn bound_to_us(program: impl AsRef<std::ffi::OsStr>) -> Command {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(program);
    // SAFETY: prctl is async-signal-safe and touches only the child being started.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    command
}

/// User + system CPU of process `pid`, from /proc/PID/stat.
fn cpu_of(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command name (which may hold spaces) start at its closing paren.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(Vec::new(), |(_, rest)| rest.split_whitespace().collect());
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // utime and stime are fields 14 and 15 of stat, 12 and 13 after the paren.
    // SAFETY: sysconf only reads a constant.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    Duration::from_secs_f64((ticks(11) + ticks(12)) as f64 / per_second)
}

/// `kubectl get seinodes -A -w -o json` on one context, with the SeiNodes it printed counted.
/// It prints the initial list as one `SeiNodeList` per 500-item chunk (items indented by 8),
/// then one object per watch event (at the top level), keys sorted and indented by 4 spaces:
/// a SeiNode is a `"kind": "SeiNode",` line at indent 4 or 12.
const KIND_LINE: &[u8] = b"\"kind\": \"SeiNode\",";

pub struct KubectlWatch {
    process: Reaped,
    printed: Arc<AtomicUsize>,
}

impl KubectlWatch {
    pub fn start(kubectl: &Path, kubeconfig: &Path, context: &str) -> Result<KubectlWatch, String> {
        let mut process = kubectl_in(kubectl, kubeconfig, context)
            .args(["get", "seinodes", "-A", "-w", "-o", "json"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: {e}", kubectl.display()))?;
        let printed = Arc::new(AtomicUsize::new(0));
        let stdout = process.stdout.take().ok_or("kubectl has no stdout")?;
        let counter = printed.clone();
        std::thread::spawn(move || {
            let mut reader = BufReader::with_capacity(1 << 20, stdout);
            let mut line = Vec::new();
            while reader.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
                let text = line.trim_ascii_end();
                let indent = text.len().saturating_sub(KIND_LINE.len());
                if text.ends_with(KIND_LINE)
                    && matches!(indent, 4 | 12)
                    && text[..indent].iter().all(|b| *b == b' ')
                {
                    counter.fetch_add(1, Ordering::Relaxed);
                }
                line.clear();
            }
        });
        Ok(KubectlWatch {
            process: Reaped(process),
            printed,
        })
    }

    pub fn cpu(&self) -> Duration {
        cpu_of(self.process.0.id())
    }
}

/// Waits until every watch printed at least its `wanted` objects; false past the deadline.
pub fn wait_printed(watches: &[KubectlWatch], wanted: &[usize]) -> bool {
    let deadline = Instant::now() + KUBECTL_DEADLINE;
    while Instant::now() < deadline {
        if watches
            .iter()
            .zip(wanted)
            .all(|(w, n)| w.printed.load(Ordering::Relaxed) >= *n)
        {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// The floor the API servers set under a full sync: wall time until every context's SeiNode
/// list, served from the watch cache (`resourceVersion=0`), has been read whole by
/// `kubectl get --raw` (read and thrown away, nothing decoded), all contexts at once.
pub fn raw_list_secs(kubectl: &Path, kubeconfig: &Path, contexts: &[&str]) -> Result<f64, String> {
    let started = std::time::Instant::now();
    let mut children = Vec::new();
    for context in contexts {
        let child = kubectl_in(kubectl, kubeconfig, context)
            .args([
                "get",
                "--raw",
                "/apis/sei.io/v1alpha1/seinodes?resourceVersion=0",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: {e}", kubectl.display()))?;
        children.push(Reaped(child));
    }
    for mut child in children {
        let status = child.0.wait().map_err(|e| format!("kubectl --raw: {e}"))?;
        if !status.success() {
            return Err(format!("kubectl get --raw failed ({status})"));
        }
    }
    Ok(started.elapsed().as_secs_f64())
}

/// The control planes' kubectl on `context`, bound to the bench's life.
fn kubectl_in(kubectl: &Path, kubeconfig: &Path, context: &str) -> Command {
    let mut command = bound_to_us(kubectl);
    command
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(["--context", context]);
    command
}

//! A real terminal for the tests: the `sei-console` binary runs in a pseudo-terminal
//! (`portable-pty`), and what it writes is fed to a terminal emulator's parser (`vt100`), so a
//! test reads the screen an operator would see — cells, the alternate screen, the cursor — and
//! never the byte stream. Keys are written to the PTY as a terminal sends them, a resize is the
//! PTY's window size change (the kernel sends SIGWINCH to the console), and the terminal's mode
//! after exit is read back from the PTY itself (termios).
//!
//! Every wait is bounded; the console is killed when the handle is dropped.
//!
//! The scenarios are in `tests/integration/pty_console.rs` (`bash tests/run --test integration --
//! pty`).
#![allow(dead_code)] // each scenario uses a different subset

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, ExitStatus, MasterPty, PtySize, native_pty_system};

/// How often a wait looks at the screen again.
const POLL: Duration = Duration::from_millis(40);
/// How much of the raw output is kept for failure messages (never for assertions).
const RAW_TAIL: usize = 4096;
/// Pause after a lone `esc`: a terminal that sends more bytes at once makes it `alt-<key>`.
const ESC_PAUSE: Duration = Duration::from_millis(150);

/// The OSC 52 copies the console sent, as the terminal emulator parsed them: the selection
/// (`c`) and the base64 payload, as written.
#[derive(Debug, Default)]
pub struct Clipboard {
    pub copies: Vec<(String, String)>,
}

impl vt100::Callbacks for Clipboard {
    fn copy_to_clipboard(&mut self, _: &mut vt100::Screen, ty: &[u8], data: &[u8]) {
        self.copies.push((
            String::from_utf8_lossy(ty).into_owned(),
            String::from_utf8_lossy(data).into_owned(),
        ));
    }
}

/// What the reader thread shares with the test.
struct Shared {
    parser: vt100::Parser<Clipboard>,
    /// The last bytes written by the console, for failure messages only.
    raw_tail: Vec<u8>,
    /// The PTY gave end-of-file or an error: the console and everything it started are gone.
    closed: bool,
    /// Bytes read so far.
    read: u64,
}

/// The console running in a pseudo-terminal.
pub struct Terminal {
    master: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn Child + Send + Sync>,
    shared: Arc<Mutex<Shared>>,
    reader: Option<std::thread::JoinHandle<()>>,
    exit: Option<ExitStatus>,
}

/// A key as a terminal sends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key<'a> {
    Text(&'a str),
    Enter,
    Esc,
    End,
    /// `ctrl-<letter>`: `Ctrl('c')` is the byte 0x03.
    Ctrl(char),
}

impl Key<'_> {
    fn bytes(self) -> Vec<u8> {
        match self {
            Key::Text(text) => text.as_bytes().to_vec(),
            Key::Enter => b"\r".to_vec(),
            Key::Esc => b"\x1b".to_vec(),
            Key::End => b"\x1b[F".to_vec(),
            Key::Ctrl(letter) => {
                let letter = letter.to_ascii_lowercase();
                assert!(letter.is_ascii_lowercase(), "ctrl-{letter}");
                vec![letter as u8 - b'a' + 1]
            }
        }
    }
}

fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    match shared.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

impl Terminal {
    /// Starts `sei-console ARGS` in a `cols`×`rows` terminal with `env` on top of the test's own
    /// environment, `TERM=xterm-256color`, and its config and state under `state`.
    pub fn start(
        args: &[&str],
        env: &HashMap<String, String>,
        state: &Path,
        cols: u16,
        rows: u16,
    ) -> Terminal {
        let pair = native_pty_system()
            .openpty(size(cols, rows))
            .expect("open a pseudo-terminal");
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_sei-console"));
        command.args(args);
        command.cwd(state);
        for (key, value) in env {
            command.env(key, value);
        }
        command.env("TERM", "xterm-256color");
        command.env("XDG_STATE_HOME", state);
        command.env("XDG_CONFIG_HOME", state);
        command.env_remove("NO_COLOR");
        // A panic's message stays on a screen of its own, without a backtrace pushing it off.
        command.env("RUST_BACKTRACE", "0");
        let child = pair
            .slave
            .spawn_command(command)
            .expect("start sei-console in the pseudo-terminal");
        // Only the console holds the terminal side now: the reader sees end-of-file when it
        // (and whatever it started) is gone.
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().expect("PTY reader");
        let writer = pair.master.take_writer().expect("PTY writer");
        let shared = Arc::new(Mutex::new(Shared {
            parser: vt100::Parser::new_with_callbacks(
                nonzero(rows),
                nonzero(cols),
                0,
                Clipboard::default(),
            ),
            raw_tail: Vec::new(),
            closed: false,
            read: 0,
        }));
        let feed = shared.clone();
        let reader = std::thread::spawn(move || {
            let mut buffer = [0u8; 16 * 1024];
            loop {
                match reader.read(&mut buffer) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let mut shared = lock(&feed);
                        shared.parser.process(&buffer[..n]);
                        shared.read += n as u64;
                        shared.raw_tail.extend_from_slice(&buffer[..n]);
                        let excess = shared.raw_tail.len().saturating_sub(RAW_TAIL);
                        shared.raw_tail.drain(..excess);
                    }
                }
            }
            lock(&feed).closed = true;
        });
        Terminal {
            master: pair.master,
            writer,
            child,
            shared,
            reader: Some(reader),
            exit: None,
        }
    }

    /// The screen as parsed so far.
    pub fn screen(&self) -> vt100::Screen {
        lock(&self.shared).parser.screen().clone()
    }

    /// The OSC 52 copies received so far: (selection, base64 payload).
    pub fn clipboard(&self) -> Vec<(String, String)> {
        lock(&self.shared).parser.callbacks().copies.clone()
    }

    /// The screen's text, one line per row (trailing blanks dropped).
    pub fn text(&self) -> String {
        self.screen().contents()
    }

    /// Row `row` of the screen (0 is the top), trailing blanks dropped.
    pub fn row(&self, row: u16) -> String {
        row_text(&self.screen(), row)
    }

    /// Waits at most `timeout` until `done` holds on the parsed screen; returns that screen, or
    /// panics naming `what` with the screen as it was.
    pub fn wait_for(
        &self,
        what: &str,
        timeout: Duration,
        done: impl Fn(&vt100::Screen) -> bool,
    ) -> vt100::Screen {
        let deadline = Instant::now() + timeout;
        loop {
            let screen = self.screen();
            if done(&screen) {
                return screen;
            }
            if Instant::now() >= deadline {
                panic!(
                    "timed out after {timeout:?} waiting for {what}; the screen:\n{}\n{}",
                    screen.contents(),
                    self.diagnostics()
                );
            }
            std::thread::sleep(POLL);
        }
    }

    /// Waits at most `timeout` until the screen shows `text` somewhere.
    pub fn wait_for_text(&self, text: &str, timeout: Duration) -> vt100::Screen {
        self.wait_for(&format!("{text:?} on the screen"), timeout, |s| {
            s.contents().contains(text)
        })
    }

    /// Sends one key.
    pub fn key(&mut self, key: Key<'_>) {
        self.writer
            .write_all(&key.bytes())
            .and_then(|()| self.writer.flush())
            .expect("write to the PTY");
        if key == Key::Esc {
            std::thread::sleep(ESC_PAUSE);
        }
    }

    /// Types `text`.
    pub fn type_text(&mut self, text: &str) {
        self.key(Key::Text(text));
    }

    /// Changes the terminal's size as a terminal window does: the PTY's window size (the kernel
    /// signals SIGWINCH to the console) and the emulator's screen.
    pub fn resize(&mut self, cols: u16, rows: u16) {
        lock(&self.shared)
            .parser
            .set_size(nonzero(rows), nonzero(cols));
        self.master
            .resize(size(cols, rows))
            .expect("resize the PTY");
    }

    /// Whether the terminal is in raw mode now: no canonical line editing and no echo, read from
    /// the PTY's termios (the console's side and ours share it).
    pub fn raw_mode(&self) -> bool {
        let termios = self.master.get_termios().expect("termios of the PTY");
        let flags = termios.local_flags.bits();
        flags & (libc::ICANON | libc::ECHO) == 0
    }

    /// Whether the console is still running.
    pub fn running(&mut self) -> bool {
        if self.exit.is_some() {
            return false;
        }
        match self.child.try_wait().expect("poll sei-console") {
            Some(status) => {
                self.exit = Some(status);
                false
            }
            None => true,
        }
    }

    /// Waits at most `timeout` for the console to exit, then for the PTY to give everything it
    /// wrote (so the screen is final); returns its exit status.
    pub fn wait_exit(&mut self, timeout: Duration) -> ExitStatus {
        let deadline = Instant::now() + timeout;
        while self.running() {
            if Instant::now() >= deadline {
                panic!(
                    "sei-console still running after {timeout:?}; the screen:\n{}\n{}",
                    self.text(),
                    self.diagnostics()
                );
            }
            std::thread::sleep(POLL);
        }
        // Everything it wrote is read once the PTY closes. A process forked elsewhere in the
        // test binary may hold the terminal side a moment longer (the PTY is opened, then
        // marked close-on-exec): then a second without output will do.
        let mut last = (lock(&self.shared).read, Instant::now());
        loop {
            let (closed, read) = {
                let shared = lock(&self.shared);
                (shared.closed, shared.read)
            };
            if closed {
                if let Some(reader) = self.reader.take() {
                    reader.join().expect("PTY reader thread");
                }
                break;
            }
            if read != last.0 {
                last = (read, Instant::now());
            } else if last.1.elapsed() >= Duration::from_secs(1) || Instant::now() >= deadline {
                break;
            }
            std::thread::sleep(POLL);
        }
        self.exit.clone().expect("exit status")
    }

    /// Checks what an operator's shell needs back after the console exits: canonical mode and
    /// echo (no raw mode), the main screen (alternate screen left) and a visible cursor. Returns
    /// the problems, empty when the terminal is restored.
    pub fn restore_problems(&self) -> Vec<String> {
        let screen = self.screen();
        let mut problems = Vec::new();
        if self.raw_mode() {
            problems.push("the terminal is still in raw mode (no ICANON/ECHO)".to_owned());
        }
        if screen.alternate_screen() {
            problems.push("the alternate screen is still shown".to_owned());
        }
        if screen.hide_cursor() {
            problems.push("the cursor is still hidden".to_owned());
        }
        problems
    }

    /// The console as it runs: raw mode, the alternate screen and a hidden cursor (so the
    /// restore checks above can see the difference).
    pub fn assert_taken_over(&self) {
        // A frame's cells are written before the cursor is hidden (ratatui hides it after the
        // flush): the bytes of the one can be read before those of the other.
        let screen = self.wait_for("the cursor hidden", Duration::from_secs(5), |s| {
            s.hide_cursor()
        });
        assert!(self.raw_mode(), "raw mode while the console runs");
        assert!(screen.alternate_screen(), "alternate screen while it runs");
        assert!(screen.hide_cursor(), "cursor hidden while it runs");
    }

    /// The process's state and the last raw bytes, for failure messages.
    fn diagnostics(&self) -> String {
        let shared = lock(&self.shared);
        format!(
            "(exit: {:?}; last output bytes: {:?})",
            self.exit,
            String::from_utf8_lossy(&shared.raw_tail)
        )
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        if self.exit.is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn nonzero(n: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(n).expect("a terminal has at least one row and column")
}

fn size(cols: u16, rows: u16) -> PtySize {
    PtySize {
        rows,
        cols,
        pixel_width: 0,
        pixel_height: 0,
    }
}

/// Row `row` of `screen`, trailing blanks dropped.
pub fn row_text(screen: &vt100::Screen, row: u16) -> String {
    let (_, cols) = screen.size();
    screen
        .rows(0, cols.get())
        .nth(usize::from(row))
        .unwrap_or_default()
        .trim_end()
        .to_owned()
}

/// The row index holding `text` first, if any.
pub fn row_of(screen: &vt100::Screen, text: &str) -> Option<u16> {
    let (rows, _) = screen.size();
    (0..rows.get()).find(|row| row_text(screen, *row).contains(text))
}

//! The interactive loop: terminal in, messages through `update`, one draw per batch.
//!
//! Redraws happen only when the model is dirty, paced by `pacing::Pacer`: a keystroke at once,
//! new data at most ten times a second. A 1 Hz tick moves ages and the STALE clock.
use std::path::PathBuf;
use std::time::Instant;

use crossterm::event::{Event as TermEvent, EventStream, KeyEventKind, KeyModifiers};
use futures::StreamExt;
use jiff::Timestamp;
use tokio::sync::mpsc;

use super::effects::Effects;
use super::errors::RunError;
use super::model::{Model, Msg, Scope};
use super::pacing::{CHANNEL_CAPACITY, Next, Pacer, TICK, handle_batch, holds_data, next};
use super::port::Connected;
use super::settings::FlagOverrides;
use super::update::update;
use crate::config::LoadedConfig;
use crate::keymap::{Key, KeyCode};

/// Keys and resizes waiting to be read (the loop reads them as they come).
const INPUT_CAPACITY: usize = 256;

/// Draws the model into a frame; the flag is `no_color`.
pub type Draw = fn(&Model, bool, &mut ratatui::Frame);

/// What the console needs to start, besides its connected clusters ([`Connected`]).
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The contexts to watch at once (`--context` repeated, else the config's `contexts`);
    /// empty: the kubeconfig's current context.
    pub contexts: Vec<String>,
    pub namespace: Option<String>,
    pub all_namespaces: bool,
    /// The console config file as loaded (problems included, shown on the first screen).
    pub config: LoadedConfig,
    /// Flags that win over the config file (`--theme`, `--read-only`).
    pub flags: FlagOverrides,
    /// `NO_COLOR` forces the plain theme whatever is chosen.
    pub no_color: bool,
    /// Draws one frame (`ui::draw`); handed in so the loop does not depend on the views.
    pub draw: Draw,
    pub default_sidecar_image: Option<String>,
    /// The doctor's reads besides the watched fleet (Leases, pods, PVCs, permissions), made as
    /// `sei-console doctor` makes them; `None`: the console's doctor has only what it watches.
    pub doctor_reader: Option<std::sync::Arc<dyn crate::ops::doctor_reads::DoctorReader>>,
    /// The controller's namespace: its platform ConfigMap is the platform config without a file.
    pub controller_namespace: String,
    /// The platform config file (`SEI_CONSOLE_PLATFORM_CONFIG`), else the ConfigMap is read.
    pub platform_file: Option<PathBuf>,
    /// The webhooks of `[notify]` and their notifier's status; `None`: none configured.
    pub notify: Option<Notifications>,
}

/// The notifier the composition root made for `[notify]`, and its status as it changes.
#[derive(Clone)]
pub struct Notifications {
    pub notifier: std::sync::Arc<dyn crate::ports::notify::Notifier>,
    pub status: tokio::sync::watch::Receiver<crate::ports::notify::NotifyStatus>,
}

impl std::fmt::Debug for Notifications {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Notifications")
    }
}

/// Restores the terminal on every exit path, panics included (ratatui's init hook covers those).
struct TerminalGuard;

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        ratatui::restore();
    }
}

/// Converts a crossterm key into ours; shift is folded into the character already.
pub fn key_from_crossterm(event: crossterm::event::KeyEvent) -> Option<Key> {
    use crossterm::event::KeyCode as C;
    let code = match event.code {
        C::Char(c) => KeyCode::Char(c),
        C::Enter => KeyCode::Enter,
        C::Esc => KeyCode::Esc,
        C::Backspace => KeyCode::Backspace,
        C::Tab => KeyCode::Tab,
        C::BackTab => KeyCode::BackTab,
        C::Up => KeyCode::Up,
        C::Down => KeyCode::Down,
        C::Left => KeyCode::Left,
        C::Right => KeyCode::Right,
        C::PageUp => KeyCode::PageUp,
        C::PageDown => KeyCode::PageDown,
        C::Home => KeyCode::Home,
        C::End => KeyCode::End,
        C::Delete => KeyCode::Delete,
        _ => return None,
    };
    Some(Key {
        code,
        ctrl: event.modifiers.contains(KeyModifiers::CONTROL),
    })
}

/// Runs the console until the user quits. Connection errors before the first frame are
/// returned (printed as one line); after that, errors show on screen and never end the loop.
///
/// The first context was connected before (`connected`: a bad kubeconfig is one line); the
/// others connect in their own watch tasks, so one unreachable cluster never holds the console
/// back.
pub async fn run(options: RunOptions, connected: Connected) -> Result<(), RunError> {
    let namespace = if options.all_namespaces {
        None
    } else {
        Some(
            options
                .namespace
                .clone()
                .unwrap_or_else(|| connected.default_namespace.clone()),
        )
    };
    let mut contexts = vec![connected.context.clone()];
    for context in options.contexts.iter().skip(1) {
        if !contexts.contains(context) {
            contexts.push(context.clone());
        }
    }
    let scope = Scope {
        contexts,
        namespace,
    };
    tracing::info!(contexts = %scope.contexts_label(), namespace = scope.namespace_label(), "console starting");
    let mut model = Model::new(
        scope,
        Timestamp::now(),
        options.default_sidecar_image.clone(),
    );
    model.configure(&options.config, options.flags);
    // The nodes' RPC is read off the loop (effects) for chain health.
    model.settings.chain_health = true;
    model.contexts = connected.context_names;
    model.platform_source = Some(match &options.platform_file {
        Some(path) => crate::actions::render_fix::PlatformSource::File(path.display().to_string()),
        None => crate::actions::render_fix::PlatformSource::ConfigMap {
            namespace: options.controller_namespace.clone(),
        },
    });
    // A platform config file given: the doctor, the node screen and describe check render
    // failures against it (without one, against the ConfigMap once its watch reads it).
    if let Some(path) = &options.platform_file {
        match crate::platform::PlatformConfig::read_file(path) {
            Ok(platform) => model.doctor.platform = Some(platform),
            Err(error) => tracing::warn!(%error, "platform config for the doctor"),
        }
    }
    if let Some(source) = model.platform_source.clone() {
        let config = model.doctor.platform.clone();
        model
            .fleet
            .set_platform_in_use(crate::actions::render_fix::PlatformInUse {
                read_at: config.is_some().then(Timestamp::now),
                source,
                config,
            });
    }
    let (tx, mut rx) = mpsc::channel(CHANNEL_CAPACITY);
    let mut effects = Effects::new(connected.port, tx.clone());
    if let Some(reader) = options.doctor_reader.clone() {
        effects = effects.with_doctor_reader(reader);
    }
    if let Some(notify) = options.notify {
        effects = effects.with_notifier(notify.notifier);
        model.notify.enabled = true;
        let (mut status, tx) = (notify.status, tx.clone());
        tokio::spawn(async move {
            while status.changed().await.is_ok() {
                let now = status.borrow_and_update().clone();
                if tx.send(Msg::Notified(now)).await.is_err() {
                    break;
                }
            }
        });
    }

    let mut terminal = ratatui::try_init().map_err(RunError::OpenTerminal)?;
    let _guard = TerminalGuard;
    if let Ok(size) = terminal.size() {
        model.size = (size.width, size.height);
    }
    // The operator's input has a channel of its own: it is read at once, even while other
    // messages wait for the next frame.
    let (input_tx, mut input_rx) = mpsc::channel(INPUT_CAPACITY);
    let mut input = tokio::spawn(read_terminal(input_tx.clone()));
    let ticker = tokio::spawn(tick(tx.clone()));
    drop(tx);
    for cmd in model.init() {
        effects.run(cmd);
    }
    effects.run(super::model::Cmd::ListNamespaces {
        context: model.scope.context().to_owned(),
    });
    model.refresh_views();

    let mut pacer = Pacer::new();
    #[cfg(feature = "testing")]
    let injected_panic = super::test_panic::InjectedPanic::from_env();
    let result = loop {
        #[cfg(feature = "testing")]
        injected_panic.check();
        if model.dirty && pacer.due(Instant::now()) {
            // What waited for this frame is shown in it.
            handle_batch(
                &mut model,
                &mut pacer,
                None,
                &mut input_rx,
                &mut rx,
                |model, msg| {
                    for cmd in update(model, msg) {
                        effects.run(cmd);
                    }
                },
            );
            model.refresh_views();
            let draw = options.draw;
            if let Err(e) = terminal.draw(|frame| draw(&model, options.no_color, frame)) {
                break Err(RunError::Draw(e));
            }
            model.dirty = false;
            pacer.drawn(Instant::now());
        }
        if let Some(text) = model.clipboard.take() {
            // The terminal's one owner writes the copy; a terminal without OSC 52 ignores it.
            let copy = crossterm::clipboard::CopyToClipboard::to_clipboard_from(text);
            if let Err(error) = crossterm::execute!(terminal.backend_mut(), copy) {
                tracing::warn!(%error, "copy to the clipboard");
            }
        }
        if model.quit {
            break Ok(());
        }
        if let Some(run) = model.foreground.take() {
            // The plugin reads the keys: the loop's reader stops first and starts again after.
            input.abort();
            let _ = (&mut input).await;
            // Given as after ctrl-z (the main screen, cooked mode) and taken back the same way.
            ratatui::restore();
            let outcome = super::plugins::foreground(&run);
            if let Err(e) = take_back(&mut terminal) {
                break Err(e);
            }
            input = tokio::spawn(read_terminal(input_tx.clone()));
            let msg = Msg::PluginEnded {
                name: run.name,
                log: None,
                outcome,
            };
            for cmd in update(&mut model, msg) {
                effects.run(cmd);
            }
            model.dirty = true;
            pacer.redraw_now();
            continue;
        }
        if std::mem::take(&mut model.suspend) {
            if let Err(e) = suspend(&mut terminal) {
                break Err(e);
            }
            model.dirty = true;
            pacer.redraw_now();
            continue;
        }
        let held = holds_data(&model);
        let first = match next(&pacer, model.dirty, held, &mut input_rx, &mut rx).await {
            Next::Handle(msg) => msg,
            Next::Draw => continue,
            Next::Closed => break Err(RunError::InputClosed),
        };
        handle_batch(
            &mut model,
            &mut pacer,
            Some(first),
            &mut input_rx,
            &mut rx,
            |model, msg| {
                for cmd in update(model, msg) {
                    effects.run(cmd);
                }
            },
        );
    };
    input.abort();
    ticker.abort();
    drop(effects);
    drop(terminal);
    result
}

/// `ctrl-z`: gives the terminal back, stops the process as a shell's job control expects, and
/// takes the terminal again when resumed (`fg`).
fn suspend(terminal: &mut ratatui::DefaultTerminal) -> Result<(), RunError> {
    ratatui::restore();
    // SAFETY: raise only sends SIGTSTP to this process; the default action stops it until
    // SIGCONT, and nothing here holds a lock across the call.
    #[allow(unsafe_code, reason = "raise(SIGTSTP) for ctrl-z; see SAFETY above")]
    unsafe {
        libc::raise(libc::SIGTSTP);
    }
    take_back(terminal)
}

/// Takes the terminal again after it was given back (`ctrl-z`, a foreground plugin).
fn take_back(terminal: &mut ratatui::DefaultTerminal) -> Result<(), RunError> {
    // The terminal is taken back by hand: a new ratatui terminal would query the cursor
    // position, and the input task reading events would swallow the answer.
    crossterm::terminal::enable_raw_mode().map_err(RunError::TakeBack)?;
    crossterm::execute!(
        std::io::stdout(),
        crossterm::terminal::EnterAlternateScreen,
        crossterm::terminal::Clear(crossterm::terminal::ClearType::All)
    )
    .map_err(RunError::TakeBack)?;
    // A blank frame makes ratatui's last frame match the cleared screen, so the next draw
    // writes every cell (`Terminal::clear` would query the cursor too).
    terminal
        .draw(|frame| frame.render_widget(ratatui::widgets::Clear, frame.area()))
        .map(|_| ())
        .map_err(RunError::Redraw)
}

async fn read_terminal(tx: mpsc::Sender<Msg>) {
    let mut events = EventStream::new();
    while let Some(event) = events.next().await {
        let msg = match event {
            Ok(TermEvent::Key(key)) if key.kind != KeyEventKind::Release => {
                match key_from_crossterm(key) {
                    Some(key) => Msg::Key(key),
                    None => continue,
                }
            }
            Ok(TermEvent::Resize(width, height)) => Msg::Resize { width, height },
            Ok(_) => continue,
            Err(e) => {
                tracing::error!(error = %e, "terminal input failed");
                return;
            }
        };
        if tx.send(msg).await.is_err() {
            return;
        }
    }
}

async fn tick(tx: mpsc::Sender<Msg>) {
    let mut interval = tokio::time::interval(TICK);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        interval.tick().await;
        if tx.send(Msg::Tick(Timestamp::now())).await.is_err() {
            return;
        }
    }
}

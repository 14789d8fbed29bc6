//! The console's loop without a terminal, on the real watchers: [`Console`].
use std::time::{Duration, Instant};

use jiff::Timestamp;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use sei_console::app::effects::Effects;
use sei_console::app::model::{Model, Msg, Scope};
use sei_console::app::update::update;
use sei_console::backend::KubeBackend;
use sei_console::keymap::{Key, KeyCode};
use sei_console::kube::client::Connection;
use sei_console::ui::theme::Theme;
use tokio::sync::mpsc;

use crate::common::TestNamespace;

const DEADLINE: Duration = Duration::from_secs(20);

/// The console's loop without a terminal: messages from the real watchers go through
/// `update`, and every batch is drawn on a TestBackend.
pub(crate) struct Console {
    pub(crate) model: Model,
    effects: Effects,
    rx: mpsc::Receiver<Msg>,
    terminal: Terminal<TestBackend>,
    /// Send the loop's 1 Hz tick (the wall clock) while waiting: elapsed times move.
    pub(crate) ticking: bool,
}

impl Console {
    pub(crate) fn start(ns: &TestNamespace) -> Console {
        Console::start_with(ns, None)
    }

    /// `platform_config_map`: the controller's namespace, when the default sidecar image
    /// comes from its ConfigMap (the console without `SEI_CONSOLE_PLATFORM_CONFIG`).
    pub(crate) fn start_with(ns: &TestNamespace, platform_config_map: Option<&str>) -> Console {
        let connection = Connection {
            client: ns.client.clone(),
            context: "test".into(),
            default_namespace: ns.name.clone(),
            kube_config: None,
        };
        let (tx, rx) = mpsc::channel(1024);
        let mut backend = KubeBackend::new(connection, None);
        if let Some(namespace) = platform_config_map {
            backend = backend.with_platform_config_map(namespace.to_owned());
        }
        Console::start_on("test", &ns.name, backend.effects(tx), rx)
    }

    /// The console on `namespace` of `context` through `effects` (built on the sender of
    /// `rx`, with a connection to `context`).
    pub(crate) fn start_on(
        context: &str,
        namespace: &str,
        effects: Effects,
        rx: mpsc::Receiver<Msg>,
    ) -> Console {
        Console::start_multi(&[context], namespace, effects, rx)
    }

    /// The console watching `namespace` in every one of `contexts` at once (`effects` holds
    /// the first one's connection and a kubeconfig naming the others).
    pub(crate) fn start_multi(
        contexts: &[&str],
        namespace: &str,
        mut effects: Effects,
        rx: mpsc::Receiver<Msg>,
    ) -> Console {
        let scope = Scope {
            contexts: contexts.iter().map(|c| (*c).to_owned()).collect(),
            namespace: Some(namespace.to_owned()),
        };
        let mut model = Model::new(scope, Timestamp::now(), None);
        model.size = (180, 30);
        for cmd in model.init() {
            effects.run(cmd);
        }
        let terminal = Terminal::new(TestBackend::new(180, 30)).expect("terminal");
        Console {
            model,
            effects,
            rx,
            terminal,
            ticking: false,
        }
    }

    pub(crate) fn screen(&mut self) -> String {
        self.model.refresh_views();
        let model = &self.model;
        self.terminal
            .draw(|frame| sei_console::ui::view(model, &Theme::plain(), frame))
            .expect("draw");
        let buffer = self.terminal.backend().buffer();
        (0..buffer.area.height)
            .map(|y| {
                let line: String = (0..buffer.area.width)
                    .map(|x| buffer[(x, y)].symbol())
                    .collect();
                line.trim_end().to_owned() + "\n"
            })
            .collect()
    }

    pub(crate) fn send(&mut self, msg: Msg) {
        for cmd in update(&mut self.model, msg) {
            self.effects.run(cmd);
        }
    }

    pub(crate) fn key(&mut self, code: KeyCode) {
        self.send(Msg::Key(Key::plain(code)));
    }

    /// Feeds watcher messages until `done(model, screen)` holds; panics with the screen after
    /// the deadline.
    pub(crate) async fn until(
        &mut self,
        what: &str,
        done: impl Fn(&Model, &str) -> bool,
    ) -> String {
        self.until_within(what, DEADLINE, done).await
    }

    /// [`Console::until`] with its own deadline.
    pub(crate) async fn until_within(
        &mut self,
        what: &str,
        within: Duration,
        done: impl Fn(&Model, &str) -> bool,
    ) -> String {
        let deadline = Instant::now() + within;
        loop {
            let screen = self.screen();
            if done(&self.model, &screen) {
                return screen;
            }
            if Instant::now() >= deadline {
                panic!("timed out waiting for {what}; screen:\n{screen}");
            }
            if self.ticking {
                self.send(Msg::Tick(Timestamp::now()));
            }
            if let Ok(Some(msg)) =
                tokio::time::timeout(Duration::from_millis(200), self.rx.recv()).await
            {
                self.send(msg);
                while let Ok(msg) = self.rx.try_recv() {
                    self.send(msg);
                }
            }
        }
    }
}

//! The fix for a StatefulSet render failure and what a render-failure event means now: pure,
//! in the core (`render::fix`), where the node screen and `describe` judge it too.
pub use crate::render::fix::{PlatformInUse, PlatformSource, event_render_fix, render_failure_fix};

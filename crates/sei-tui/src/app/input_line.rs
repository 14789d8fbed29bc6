//! The line typed after `/` (the fleet filter, applied as it is typed) or `:` (a command, run
//! on enter, completed with tab): its keys, for `update`.
use super::model::{Cmd, Flash, InputKind, Model};
use crate::fleet::filter::Filter;
use crate::keymap::{Key, KeyCode};

/// A key while the line is typed.
pub(super) fn on_key(model: &mut Model, key: Key) -> Vec<Cmd> {
    let Some(input) = model.input.as_mut() else {
        return Vec::new();
    };
    match (key.code, key.ctrl) {
        (KeyCode::Char('c'), true) => {
            let confirmed = std::mem::take(&mut model.quit_armed);
            super::update::request_quit(model, confirmed);
        }
        (KeyCode::Esc, _) => {
            if input.kind == InputKind::Filter {
                model.filter = input.previous_filter.clone();
            }
            model.input = None;
            model.flash = None;
        }
        (KeyCode::Enter, _) => {
            let Some(input) = model.input.take() else {
                return Vec::new();
            };
            return match input.kind {
                InputKind::Filter => {
                    apply_filter_text(model, &input.text, true);
                    let applied = model.filter.text.clone();
                    if applied != input.previous_filter.text {
                        super::settings::save_filter(model)
                    } else {
                        Vec::new()
                    }
                }
                InputKind::Command => super::command::run(model, &input.text),
            };
        }
        (KeyCode::Backspace, _) => {
            input.text.pop();
            if input.kind == InputKind::Filter {
                let text = input.text.clone();
                apply_filter_text(model, &text, false);
            }
        }
        (KeyCode::Char('u'), true) => {
            input.text.clear();
            if input.kind == InputKind::Filter {
                apply_filter_text(model, "", false);
            }
        }
        (KeyCode::Tab, _) if input.kind == InputKind::Command => {
            let text = input.text.clone();
            let completed = super::command::complete(model, &text);
            if let Some(input) = model.input.as_mut() {
                input.text = completed;
            }
        }
        (KeyCode::Char(c), false) => {
            input.text.push(c);
            if input.kind == InputKind::Filter {
                let text = input.text.clone();
                apply_filter_text(model, &text, false);
            }
        }
        _ => {}
    }
    Vec::new()
}

/// Filters as the user types; a term that does not parse (yet) keeps the last good filter and
/// says why, without interrupting typing.
fn apply_filter_text(model: &mut Model, text: &str, final_enter: bool) {
    match Filter::parse(text) {
        Ok(filter) => {
            model.filter = filter;
            model.flash = None;
        }
        Err(err) => {
            model.flash = Some(Flash {
                text: format!("filter: {err}"),
                error: true,
            });
            if final_enter {
                model.filter = Filter::default();
            }
        }
    }
}

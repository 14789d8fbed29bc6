//! The README's picture of the fleet screen: the real app's screen drawn on ratatui's
//! `TestBackend` (the demo fleet, the fixed sample clock, the dark theme) and written as an SVG,
//! so the picture cannot drift from the app. The test fails when `docs/fleet-screen.svg` differs
//! from what the app draws today; `SEI_CONSOLE_WRITE_PICTURE=1 cargo test --lib readme_picture`
//! writes it anew.
use std::fmt::Write as _;
use std::path::Path;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

use super::theme::Theme;
use super::view;
use crate::app::model::Msg;
use crate::app::tests::{demo_model, press};
use crate::app::update::update;

const PICTURE: &str = "docs/fleet-screen.svg";
const CELL_WIDTH: f32 = 8.4;
const LINE_HEIGHT: f32 = 18.0;
const FONT_SIZE: f32 = 14.0;
const BACKGROUND: &str = "#1c1c1c";
const FOREGROUND: &str = "#d0d0d0";

/// xterm's 16 colours, which a dark terminal shows for the theme's named colours.
fn hex(color: Color) -> Option<String> {
    let named = match color {
        Color::Reset => return None,
        Color::Black => "#000000",
        Color::Red => "#cd0000",
        Color::Green => "#00cd00",
        Color::Yellow => "#cdcd00",
        Color::Blue => "#5c5cff",
        Color::Magenta => "#cd00cd",
        Color::Cyan => "#00cdcd",
        Color::Gray => "#c0c0c0",
        Color::DarkGray => "#7f7f7f",
        Color::LightRed => "#ff5f5f",
        Color::LightGreen => "#5fff5f",
        Color::LightYellow => "#ffff5f",
        Color::LightBlue => "#8787ff",
        Color::LightMagenta => "#ff5fff",
        Color::LightCyan => "#5fffff",
        Color::White => "#ffffff",
        Color::Rgb(r, g, b) => return Some(format!("#{r:02x}{g:02x}{b:02x}")),
        Color::Indexed(i) => return Some(format!("#{i:02x}{i:02x}{i:02x}")),
    };
    Some(named.to_owned())
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One cell's look: foreground, background (after `REVERSED`), bold.
#[derive(Clone, PartialEq)]
struct Look {
    fg: String,
    bg: Option<String>,
    bold: bool,
}

fn look(buffer: &Buffer, x: u16, y: u16) -> Look {
    let cell = &buffer[(x, y)];
    let mut fg = hex(cell.fg);
    let mut bg = hex(cell.bg);
    if cell.modifier.contains(Modifier::REVERSED) {
        std::mem::swap(&mut fg, &mut bg);
        fg = fg.or_else(|| Some(BACKGROUND.to_owned()));
        bg = bg.or_else(|| Some(FOREGROUND.to_owned()));
    }
    Look {
        fg: fg.unwrap_or_else(|| FOREGROUND.to_owned()),
        bg,
        bold: cell.modifier.contains(Modifier::BOLD),
    }
}

/// The buffer as an SVG: a rectangle per run of one background, a `<text>` per run of ASCII of
/// one look, and each other symbol alone at its cell, so a font whose symbols are wider or
/// narrower than a cell cannot shift the columns after them.
fn svg(buffer: &Buffer) -> String {
    let width = f32::from(buffer.area.width) * CELL_WIDTH;
    let height = f32::from(buffer.area.height) * LINE_HEIGHT;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, \
         monospace\" font-size=\"{FONT_SIZE}\">"
    );
    let _ = writeln!(
        out,
        "<rect width=\"100%\" height=\"100%\" fill=\"{BACKGROUND}\"/>"
    );
    for y in 0..buffer.area.height {
        let top = f32::from(y) * LINE_HEIGHT;
        let baseline = top + LINE_HEIGHT * 0.75;
        let mut x = 0;
        while x < buffer.area.width {
            let start = x;
            let bg = look(buffer, x, y).bg;
            while x < buffer.area.width && look(buffer, x, y).bg == bg {
                x += 1;
            }
            if let Some(fill) = bg {
                let _ = writeln!(
                    out,
                    "<rect x=\"{:.1}\" y=\"{top:.0}\" width=\"{:.1}\" height=\"{LINE_HEIGHT:.0}\" \
                     fill=\"{fill}\"/>",
                    f32::from(start) * CELL_WIDTH,
                    f32::from(x - start) * CELL_WIDTH
                );
            }
        }
        let mut x = 0;
        while x < buffer.area.width {
            let start = x;
            let first = look(buffer, x, y);
            let symbol = buffer[(x, y)].symbol();
            let mut text = String::new();
            if symbol.is_ascii() {
                while x < buffer.area.width
                    && buffer[(x, y)].symbol().is_ascii()
                    && look(buffer, x, y) == first
                {
                    text.push_str(buffer[(x, y)].symbol());
                    x += 1;
                }
            } else {
                text.push_str(symbol);
                x += 1;
            }
            let text = text.trim_end();
            if text.is_empty() {
                continue;
            }
            let weight = if first.bold {
                " font-weight=\"bold\""
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "<text x=\"{:.1}\" y=\"{baseline:.1}\" fill=\"{}\"{weight} \
                 xml:space=\"preserve\">{}</text>",
                f32::from(start) * CELL_WIDTH,
                first.fg,
                escape(text)
            );
        }
    }
    out.push_str("</svg>\n");
    out
}

/// The demo fleet at 120x11 with the cursor on the failed validator, as an on-call operator sees
/// it after moving to the red row.
fn fleet_screen() -> Buffer {
    let mut model = demo_model();
    press(&mut model, "jjjjj");
    update(
        &mut model,
        Msg::Resize {
            width: 120,
            height: 11,
        },
    );
    let mut terminal = Terminal::new(TestBackend::new(120, 11)).expect("test terminal");
    terminal
        .draw(|frame| view(&model, &Theme::dark(), frame))
        .expect("draws");
    terminal.backend().buffer().clone()
}

#[test]
fn readme_picture_is_the_current_fleet_screen() {
    let picture = svg(&fleet_screen());
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(PICTURE);
    if std::env::var_os("SEI_CONSOLE_WRITE_PICTURE").is_some() {
        std::fs::write(&path, &picture).expect("write the picture");
    }
    let stored = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        stored == picture,
        "{PICTURE} is not the fleet screen the app draws today; write it anew with \
         `SEI_CONSOLE_WRITE_PICTURE=1 cargo test --lib readme_picture` and look at it"
    );
}

#[test]
fn the_picture_keeps_every_symbol_at_its_cell_and_escapes_markup() {
    let mut buffer = Buffer::empty(ratatui::layout::Rect::new(0, 0, 6, 1));
    buffer.set_string(0, 0, "a<b ✓", ratatui::style::Style::new().fg(Color::Green));
    let picture = svg(&buffer);
    assert!(picture.contains(">a&lt;b</text>"), "{picture}");
    assert!(
        picture.contains("<text x=\"33.6\" y=\"13.5\" fill=\"#00cd00\" xml:space=\"preserve\">✓"),
        "{picture}"
    );
}

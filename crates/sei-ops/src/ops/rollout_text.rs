//! The rollout preview's words: the wave plan and the nodes left alone (the head the console
//! shows at the top), then each node's plan.
use super::actions::rollout::RolloutPrepared;
use crate::actions::preview::image_pin_text;

impl RolloutPrepared {
    /// The preview text: the head (waves, nodes left alone), then each node's plan.
    pub fn text(&self) -> String {
        let mut text = self.head_text();
        text.push_str(&self.body_text());
        text
    }

    /// What is decided before any node's plan: the waves, and the nodes left alone (already
    /// on the image, or skipped because no plan can take them there). The console shows it
    /// at the top of the preview.
    pub fn head_text(&self) -> String {
        let mut text = self.waves_text();
        text.push_str(&self.gate_text());
        if let Some(executor) = &self.executor {
            text.push_str(executor);
            text.push('\n');
        }
        if let Some(unusual) = &self.unusual_tag {
            text.push_str(&format!("warning: {unusual}\n"));
        }
        for note in &self.canary_notes {
            text.push_str(note);
            text.push('\n');
        }
        for note in &self.already_rolled {
            text.push_str(note);
            text.push('\n');
        }
        for blocked in &self.blocked {
            text.push_str(&format!(
                "{}: skipped, nothing will be changed: {}\n",
                blocked.node, blocked.reason
            ));
        }
        text
    }

    /// The waves of more than one node to roll, the canary wave named; else nothing.
    pub fn waves_text(&self) -> String {
        let mut text = String::new();
        if self.nodes.len() > 1 {
            let canary = match self.sizes.canary {
                0 => "no canary".to_owned(),
                n => format!("canary {n}"),
            };
            text.push_str(&format!(
                "Waves ({canary}, batch {}; each waits for the previous, a failure halts):\n",
                self.sizes.batch.max(1)
            ));
            for (index, wave) in self.waves.iter().enumerate() {
                let label = if index == 0 && self.sizes.canary > 0 {
                    "canary"
                } else {
                    "batch"
                };
                text.push_str(&format!(
                    "  {}. {label:<6} {}\n",
                    index + 1,
                    wave.join(", ")
                ));
            }
        }
        text
    }

    /// Peer notes and each node's plan preview.
    pub fn body_text(&self) -> String {
        let mut text = String::new();
        for note in &self.peer_notes {
            text.push_str(note);
            text.push('\n');
        }
        for node in &self.nodes {
            text.push_str(&image_pin_text(&node.preview));
        }
        text
    }
}

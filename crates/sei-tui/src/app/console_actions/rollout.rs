//! `rollout` (`i`): an image rollout of the open node, else the marked nodes (of one cluster or
//! several: one request per cluster, run cluster after cluster), else the selected one. The
//! form: the image, and for several nodes the canary and the batch; the health gate last.
use super::{ConsoleAction, FormInput, Targets};
use crate::actions::image_ref::ImageRef;
use crate::app::action::{ActionRequest, CANARY_AUTO, CANARY_NONE, Field, Form, RequestPart};
use crate::app::errors::FormError;
use crate::chain::gate::GateSettings;
use crate::config::WaveDefaults;
use crate::keymap::{Action, Binding, Context};
use crate::ops::action::SomeOperation;
use crate::ops::actions::rollout::{KIND, RolloutInput, Selection};

pub const ACTIONS: &[ConsoleAction] = &[ConsoleAction {
    kind: KIND,
    name: "rollout",
    title: "Image rollout",
    bindings: &[
        Binding {
            context: Context::Fleet,
            keys: &["i"],
            action: Action::Operator("rollout"),
            help: "image rollout: marked nodes, else the selected one",
        },
        Binding {
            context: Context::Node,
            keys: &["i"],
            action: Action::Operator("rollout"),
            help: "image rollout of this node",
        },
    ],
    help_before: Some(Action::ShowAction),
    targets: Targets::Marked,
    form,
    validate,
    image_field: Some(0),
}];

fn form(input: &FormInput) -> Form {
    let image = input.row.map_or("", |r| r.image.as_str());
    if input.clusters.is_empty() {
        rollout_form(
            input.context,
            input.namespace,
            input.names.clone(),
            image,
            input.waves,
        )
    } else {
        across_clusters_form(input.clusters.clone(), image, input.waves)
    }
}

/// The form of an image rollout of `nodes` (their current image to start from); more than one
/// node also gets the canary and batch fields.
fn rollout_form(
    context: &str,
    namespace: &str,
    nodes: Vec<String>,
    current_image: &str,
    waves: WaveDefaults,
) -> Form {
    let mut fields = vec![Field::new(
        "image",
        current_image,
        "name[:tag][@sha256:digest] — a digest pin is recommended",
    )];
    if nodes.len() > 1 {
        let choices = std::iter::once(CANARY_AUTO.to_owned())
            .chain(nodes.iter().cloned())
            .chain(std::iter::once(CANARY_NONE.to_owned()))
            .collect();
        fields.push(
            Field::new(
                "canary",
                CANARY_AUTO,
                "←/→ auto (first not on the image), a marked node, none; or type a,b",
            )
            .with_choices(choices),
        );
        fields.push(Field::new(
            "batch",
            waves.batch.max(1).to_string(),
            "nodes per wave after the canary",
        ));
    }
    fields.push(health_gate_field());
    Form {
        waves,
        ..Form::new(context, namespace, nodes, fields)
    }
}

/// The form of a rollout of marked nodes of several clusters, `(context, namespace, nodes)`
/// per cluster: the image alone; each cluster rolls in the config's waves, one after the other.
fn across_clusters_form(
    clusters: Vec<(String, String, Vec<String>)>,
    current_image: &str,
    waves: WaveDefaults,
) -> Form {
    let contexts: Vec<&str> = clusters.iter().map(|(c, _, _)| c.as_str()).collect();
    // The prompt's first line: `2 clusters: arctic-1/rpc-0, pacific-1/rpc-0`.
    let form = Form::new(
        &contexts.join(", "),
        &format!("{} clusters", contexts.len()),
        Vec::new(),
        Vec::new(),
    );
    let nodes = clusters
        .iter()
        .flat_map(|(context, _, nodes)| nodes.iter().map(move |n| format!("{context}/{n}")))
        .collect();
    let fields = vec![
        Field::new(
            "image",
            current_image,
            "name[:tag][@sha256:digest]; cluster after cluster, each in the config's waves",
        ),
        health_gate_field(),
    ];
    Form {
        nodes,
        fields,
        waves,
        clusters,
        ..form
    }
}

/// The rollout's health gate field (`soak 1m, timeout 10m` or `off`), the last of its form.
const HEALTH_GATE: &str = "health gate";

fn health_gate_field() -> Field {
    let default = GateSettings::default().form_text();
    Field::new(
        HEALTH_GATE,
        default.clone(),
        "←/→ on or off, or type soak D, timeout D: each wave waits for its nodes caught up",
    )
    .with_choices(vec![default, "off".to_owned()])
    .optional()
}

/// The health gate field's value: `None` for off.
fn health_gate(form: &Form) -> Result<Option<GateSettings>, FormError> {
    match form.fields.iter().find(|f| f.label == HEALTH_GATE) {
        Some(field) => {
            GateSettings::parse(&field.value).map_err(|e| FormError::field(HEALTH_GATE, e))
        }
        None => Ok(Some(GateSettings::default())),
    }
}

/// The canary and batch fields into wave sizes and chosen canaries.
fn rollout_waves(form: &Form) -> Result<(WaveDefaults, Vec<String>), FormError> {
    let mut waves = form.waves;
    if !form.fields.iter().any(|f| f.label == "batch") {
        return Ok((waves, Vec::new()));
    }
    waves.batch = match form.value(2).parse::<u32>() {
        Ok(batch) if batch >= 1 => batch,
        _ => {
            return Err(FormError::field(
                "batch",
                format!(
                    "{:?} is not a whole number of nodes (1 or more)",
                    form.value(2)
                ),
            ));
        }
    };
    let canaries: Vec<String> = match form.value(1) {
        "" | CANARY_AUTO => Vec::new(),
        CANARY_NONE => {
            waves.canary = 0;
            Vec::new()
        }
        names => names
            .split([',', ' '])
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect(),
    };
    if let Some(stranger) = canaries.iter().find(|c| !form.nodes.contains(c)) {
        return Err(FormError::field(
            "canary",
            format!(
                "{stranger} is not one of the marked nodes ({})",
                form.nodes.join(", ")
            ),
        ));
    }
    if !canaries.is_empty() && canaries.len() == form.nodes.len() {
        return Err(FormError::field(
            "canary",
            "every node would be a canary; leave one for the batches",
        ));
    }
    Ok((waves, canaries))
}

fn validate(form: &Form) -> Result<ActionRequest, FormError> {
    if !form.clusters.is_empty() {
        return across_clusters(form);
    }
    let image = ImageRef::parse_to_pin(form.value(0)).map_err(|e| FormError::field("image", e))?;
    let (waves, canaries) = rollout_waves(form)?;
    let operation = SomeOperation::new(RolloutInput {
        selection: Selection::Named(form.nodes.clone()),
        image,
        waves,
        canary_nodes: canaries,
        wait: true,
        dry_run: false,
        health_gate: health_gate(form)?,
        allow_unusual_tag: true,
        undo_of: None,
        hold_after: None,
        resolve_digest: false,
    });
    Ok(ActionRequest::of_form(form, operation))
}

/// A rollout per cluster, each of that cluster's marked nodes.
fn across_clusters(form: &Form) -> Result<ActionRequest, FormError> {
    let image = ImageRef::parse_to_pin(form.value(0)).map_err(|e| FormError::field("image", e))?;
    let gate = health_gate(form)?;
    let parts = form
        .clusters
        .iter()
        .map(|(context, namespace, nodes)| RequestPart {
            context: context.clone(),
            namespace: namespace.clone(),
            operation: SomeOperation::new(RolloutInput {
                selection: Selection::Named(nodes.clone()),
                image: image.clone(),
                waves: form.waves,
                canary_nodes: Vec::new(),
                wait: true,
                dry_run: false,
                health_gate: gate,
                allow_unusual_tag: true,
                undo_of: None,
                hold_after: None,
                resolve_digest: false,
            }),
        })
        .collect();
    Ok(ActionRequest {
        parts,
        allow_unknown_fields: false,
    })
}

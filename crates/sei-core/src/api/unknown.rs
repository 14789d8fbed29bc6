//! The keys of an object that this model does not know, preserved verbatim.
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// Keys of an object that this model does not know, preserved verbatim (through
/// `#[serde(flatten)]`). Empty, the usual case, it is one null pointer instead of an empty
/// map's 72 bytes: a SeiNode with a plan carries a dozen, and a watched fleet one SeiNode per
/// node.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UnknownFields(Option<Box<Map<String, Value>>>);

impl UnknownFields {
    pub fn new() -> UnknownFields {
        UnknownFields(None)
    }

    pub fn is_empty(&self) -> bool {
        self.0.as_ref().is_none_or(|map| map.is_empty())
    }

    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |map| map.len())
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.as_ref()?.get(key)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    pub fn insert(&mut self, key: String, value: Value) -> Option<Value> {
        self.0.get_or_insert_with(Box::default).insert(key, value)
    }

    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let removed = self.0.as_mut()?.remove(key);
        if self.is_empty() {
            self.0 = None;
        }
        removed
    }

    pub fn clear(&mut self) {
        self.0 = None;
    }

    /// The keys and values, in the order they were read.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.0.iter().flat_map(|map| map.iter())
    }
}

impl From<Map<String, Value>> for UnknownFields {
    fn from(map: Map<String, Value>) -> UnknownFields {
        UnknownFields((!map.is_empty()).then(|| Box::new(map)))
    }
}

impl Serialize for UnknownFields {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for UnknownFields {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Map::deserialize(deserializer).map(UnknownFields::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Known {
        a: i64,
        #[serde(flatten)]
        unknown: UnknownFields,
    }

    #[test]
    fn unknown_keys_round_trip_in_order_and_none_costs_no_map() {
        let text = r#"{"a":1,"zeta":{"x":[1,2]},"alpha":null}"#;
        let known: Known = serde_json::from_str(text).expect("decodes");
        assert_eq!(known.unknown.len(), 2);
        assert_eq!(known.unknown.get("alpha"), Some(&Value::Null));
        assert_eq!(serde_json::to_string(&known).expect("encodes"), text);
        let bare: Known = serde_json::from_str(r#"{"a":2}"#).expect("decodes");
        assert_eq!(bare.unknown, UnknownFields::new());
        assert!(bare.unknown.0.is_none());
        assert_eq!(serde_json::to_string(&bare).expect("encodes"), r#"{"a":2}"#);
        assert_eq!(std::mem::size_of::<UnknownFields>(), 8);
    }

    #[test]
    fn removing_the_last_key_frees_the_map() {
        let mut unknown = UnknownFields::new();
        unknown.insert("k".into(), Value::Bool(true));
        assert!(unknown.contains_key("k"));
        assert_eq!(unknown.remove("k"), Some(Value::Bool(true)));
        assert!(unknown.0.is_none());
    }
}

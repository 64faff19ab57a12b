//! A read-only view of a parsed JSON document, so the compiler works on both
//! `serde_json::Value` and the arena `smpatch_value::Value`.

/// A JSON node the compiler can read. `Copy` handles into a parsed tree.
pub(crate) trait Doc<'d>: Copy + 'd {
    /// Member of an object.
    fn get(self, key: &str) -> Option<Self>;
    /// The string, if this is a string.
    fn as_str(self) -> Option<&'d str>;
    /// The boolean, if this is a boolean.
    fn as_bool(self) -> Option<bool>;
    /// Object members in document order, if this is an object.
    fn members(self) -> Option<Vec<(&'d str, Self)>>;
    /// Whether this is an object.
    fn is_object(self) -> bool;
    /// Elements, if this is an array.
    fn elements(self) -> Option<Vec<Self>>;
    /// The Go type name the reference uses in "expected a string, but
    /// received a <type>" messages.
    fn go_type(self) -> &'static str;
    /// The compact JSON text of a scalar (for non-string enum values).
    fn scalar_text(self) -> String;
    /// Compact JSON text of any value (for `default`).
    fn to_json_text(self) -> String;
}

impl<'d> Doc<'d> for &'d serde_json::Value {
    fn get(self, key: &str) -> Option<Self> {
        self.as_object()?.get(key)
    }
    fn as_str(self) -> Option<&'d str> {
        serde_json::Value::as_str(self)
    }
    fn as_bool(self) -> Option<bool> {
        serde_json::Value::as_bool(self)
    }
    fn members(self) -> Option<Vec<(&'d str, Self)>> {
        Some(
            self.as_object()?
                .iter()
                .map(|(k, v)| (k.as_str(), v))
                .collect(),
        )
    }
    fn is_object(self) -> bool {
        serde_json::Value::is_object(self)
    }
    fn elements(self) -> Option<Vec<Self>> {
        Some(self.as_array()?.iter().collect())
    }
    fn go_type(self) -> &'static str {
        match self {
            serde_json::Value::Null => "<nil>",
            serde_json::Value::Bool(_) => "bool",
            serde_json::Value::Number(n) if n.is_f64() => "float64",
            serde_json::Value::Number(_) => "int",
            serde_json::Value::String(_) => "string",
            serde_json::Value::Array(_) => "[]interface {}",
            serde_json::Value::Object(_) => "map[string]interface {}",
        }
    }
    fn scalar_text(self) -> String {
        match self {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Array(_) | serde_json::Value::Object(_) => String::new(),
            other => other.to_string(),
        }
    }
    fn to_json_text(self) -> String {
        self.to_string()
    }
}

impl<'d> Doc<'d> for smpatch_value::Value<'d> {
    fn get(self, key: &str) -> Option<Self> {
        self.as_object()?.get(key)
    }
    fn as_str(self) -> Option<&'d str> {
        smpatch_value::Value::as_str(&self)
    }
    fn as_bool(self) -> Option<bool> {
        smpatch_value::Value::as_bool(&self)
    }
    fn members(self) -> Option<Vec<(&'d str, Self)>> {
        Some(self.as_object()?.iter().collect())
    }
    fn is_object(self) -> bool {
        smpatch_value::Value::is_object(&self)
    }
    fn elements(self) -> Option<Vec<Self>> {
        Some(self.as_array()?.to_vec())
    }
    fn go_type(self) -> &'static str {
        use smpatch_value::Kind;
        match self.kind() {
            Kind::Null => "<nil>",
            Kind::Bool => "bool",
            Kind::Int => "int",
            Kind::Float => "float64",
            Kind::String => "string",
            Kind::Array => "[]interface {}",
            Kind::Object => "map[string]interface {}",
        }
    }
    fn scalar_text(self) -> String {
        if let Some(s) = self.as_str() {
            return s.to_owned();
        }
        if self.is_object() || smpatch_value::Value::is_array(&self) {
            return String::new();
        }
        smpatch_value::render(&self).into_owned()
    }
    fn to_json_text(self) -> String {
        smpatch_value::to_json_string(&self)
    }
}

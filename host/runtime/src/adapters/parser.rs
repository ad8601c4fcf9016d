//! A component's parser behind the core's Parser port.

use std::sync::Arc;

use amber_core::ports::{Calls, LanguageSpec, Parser, PortError, Span, Symbol};

use super::{missing, port_error};
use crate::pool_cell::PoolCell;

pub struct ComponentParser {
    pool: Arc<PoolCell>,
    spec: LanguageSpec,
    label: String,
}

impl ComponentParser {
    pub fn new(pool: Arc<PoolCell>, spec: LanguageSpec) -> Self {
        let label = format!("parser `{}`", spec.name);
        ComponentParser { pool, spec, label }
    }
}

impl Parser for ComponentParser {
    fn language(&self) -> &LanguageSpec {
        &self.spec
    }

    fn outline(&self, source: &str) -> Result<Vec<Symbol>, PortError> {
        let symbols = self
            .pool
            .call(&self.label, |inst| match &inst.exports.parser {
                Some(p) => p.outline(&mut inst.store, &self.spec.name, source),
                None => Err(missing("parser")),
            })
            .map_err(port_error)?
            .map_err(|e| PortError(format!("{}: {e}", self.label)))?;
        let size: usize = symbols
            .iter()
            .map(|s| 32 + s.kind.len() + s.name.len())
            .sum();
        self.pool
            .check_output(&self.label, size)
            .map_err(port_error)?;
        Ok(symbols
            .into_iter()
            .map(|s| Symbol {
                kind: s.kind,
                name: s.name,
                parent: s.parent,
                byte_start: s.byte_start,
                byte_end: s.byte_end,
                line_start: s.line_start,
                line_end: s.line_end,
                signature_end: s.signature_end,
            })
            .collect())
    }

    fn references(&self, source: &str, name: &str) -> Result<Calls, PortError> {
        let calls = self
            .pool
            .call(&self.label, |inst| match &inst.exports.parser {
                Some(p) => p.references(&mut inst.store, &self.spec.name, source, name),
                None => Err(missing("parser")),
            })
            .map_err(port_error)?
            .map_err(|e| PortError(format!("{}: {e}", self.label)))?;
        let size = calls.spans.len() * 12 + calls.incomplete.as_ref().map_or(0, String::len);
        self.pool
            .check_output(&self.label, size)
            .map_err(port_error)?;
        Ok(Calls {
            spans: calls
                .spans
                .into_iter()
                .map(|s| Span {
                    byte_start: s.byte_start,
                    byte_end: s.byte_end,
                    line: s.line,
                })
                .collect(),
            incomplete: calls.incomplete,
        })
    }
}

//! TypeScript declarations of amber's WIT for JavaScript plugins
//! (`sdk/js/amber-plugin.d.ts`), written from the WIT by wit-parser in
//! the shapes componentize-js and jco use: records as interfaces with
//! camelCase fields, variants as `{ tag, val }` unions, enums as their WIT
//! names, `option<T>` as `T | undefined`, and a `result`'s error thrown.
//! `cargo xtask js-types` writes the file; a test keeps it current.

use std::fmt::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use wit_bindgen_core::wit_parser::{
    Docs, Function, FunctionKind, Interface, Resolve, Type, TypeDefKind, TypeId, TypeOwner,
};

use crate::root;

pub fn path() -> PathBuf {
    root().join("sdk/js/amber-plugin.d.ts")
}

/// `kebab-case` → `camelCase`.
fn camel(name: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in name.chars() {
        if c == '-' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// `kebab-case` → `PascalCase`.
fn pascal(name: &str) -> String {
    let camel = camel(name);
    let mut chars = camel.chars();
    chars
        .next()
        .map(|f| f.to_uppercase().collect::<String>() + chars.as_str())
        .unwrap_or_default()
}

fn doc(docs: &Docs, indent: &str) -> String {
    match &docs.contents {
        Some(text) => {
            let mut out = format!("{indent}/**\n");
            for line in text.lines() {
                let _ = writeln!(out, "{indent} * {line}");
            }
            let _ = writeln!(out, "{indent} */");
            out
        }
        None => String::new(),
    }
}

fn ty(resolve: &Resolve, t: &Type) -> String {
    match t {
        Type::Bool => "boolean".into(),
        Type::U8
        | Type::U16
        | Type::U32
        | Type::S8
        | Type::S16
        | Type::S32
        | Type::F32
        | Type::F64 => "number".into(),
        Type::U64 | Type::S64 => "bigint".into(),
        Type::Char | Type::String => "string".into(),
        Type::ErrorContext => "unknown".into(),
        Type::Id(id) => id_ty(resolve, *id),
    }
}

fn id_ty(resolve: &Resolve, id: TypeId) -> String {
    let def = &resolve.types[id];
    if let Some(name) = &def.name {
        // Qualified by the namespace of the interface that owns it: an
        // interface's `use types.{x}` names the same type again.
        if let TypeOwner::Interface(owner) = def.owner {
            if let Some(owner_name) = &resolve.interfaces[owner].name {
                return format!("{}.{}", pascal(owner_name), pascal(name));
            }
        }
        return pascal(name);
    }
    match &def.kind {
        TypeDefKind::Option(t) => format!("{} | undefined", ty(resolve, t)),
        // jco and componentize-js pass lists of numbers as typed arrays.
        TypeDefKind::List(Type::U8) => "Uint8Array".into(),
        TypeDefKind::List(Type::S8) => "Int8Array".into(),
        TypeDefKind::List(Type::U16) => "Uint16Array".into(),
        TypeDefKind::List(Type::S16) => "Int16Array".into(),
        TypeDefKind::List(Type::U32) => "Uint32Array".into(),
        TypeDefKind::List(Type::S32) => "Int32Array".into(),
        TypeDefKind::List(Type::U64) => "BigUint64Array".into(),
        TypeDefKind::List(Type::S64) => "BigInt64Array".into(),
        TypeDefKind::List(Type::F32) => "Float32Array".into(),
        TypeDefKind::List(Type::F64) => "Float64Array".into(),
        TypeDefKind::List(t) => format!("Array<{}>", ty(resolve, t)),
        TypeDefKind::Tuple(t) => format!(
            "[{}]",
            t.types
                .iter()
                .map(|t| ty(resolve, t))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        TypeDefKind::Result(r) => format!(
            "Result<{}, {}>",
            r.ok.as_ref()
                .map(|t| ty(resolve, t))
                .unwrap_or("void".into()),
            r.err
                .as_ref()
                .map(|t| ty(resolve, t))
                .unwrap_or("void".into())
        ),
        TypeDefKind::Handle(
            wit_bindgen_core::wit_parser::Handle::Own(r)
            | wit_bindgen_core::wit_parser::Handle::Borrow(r),
        ) => id_ty(resolve, *r),
        TypeDefKind::Type(t) => ty(resolve, t),
        _ => "unknown".into(),
    }
}

/// `(params): result` of a function, its first `skip` parameters left
/// out (a method's `self`). A `result<T, E>` returns T and throws
/// `{ payload: E }`, as componentize-js has it.
fn signature(resolve: &Resolve, f: &Function, skip: usize) -> String {
    let result = match &f.result {
        None => "void".to_string(),
        Some(Type::Id(id)) => match &resolve.types[*id].kind {
            TypeDefKind::Result(r) if resolve.types[*id].name.is_none() => {
                let ok =
                    r.ok.as_ref()
                        .map(|t| ty(resolve, t))
                        .unwrap_or("void".into());
                let err = r
                    .err
                    .as_ref()
                    .map(|t| ty(resolve, t))
                    .unwrap_or("void".into());
                format!("{ok} /* throws {{ payload: {err} }} */")
            }
            _ => ty(resolve, &Type::Id(*id)),
        },
        Some(t) => ty(resolve, t),
    };
    format!("({}): {}", params(resolve, f, skip), result)
}

/// `name: type, …` of a function's parameters, the first `skip` left out.
fn params(resolve: &Resolve, f: &Function, skip: usize) -> String {
    f.params
        .iter()
        .skip(skip)
        .map(|p| format!("{}: {}", camel(&p.name), ty(resolve, &p.ty)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A resource: an interface of its methods, and the class a plugin
/// exports for it (componentize-js calls `new Name(…)` for the WIT
/// constructor).
fn resource(resolve: &Resolve, iface: &Interface, id: TypeId, name: &str) -> String {
    let mut methods = String::new();
    let mut class = String::new();
    for f in iface.functions.values() {
        match f.kind {
            FunctionKind::Method(of) | FunctionKind::AsyncMethod(of) if of == id => {
                methods.push_str(&doc(&f.docs, "    "));
                let _ = writeln!(
                    methods,
                    "    {}{};",
                    camel(f.item_name()),
                    signature(resolve, f, 1)
                );
            }
            FunctionKind::Constructor(of) if of == id => {
                class.push_str(&doc(&f.docs, "    "));
                let _ = writeln!(class, "    new ({}): {name};", params(resolve, f, 0));
            }
            FunctionKind::Static(of) | FunctionKind::AsyncStatic(of) if of == id => {
                class.push_str(&doc(&f.docs, "    "));
                let _ = writeln!(
                    class,
                    "    {}{};",
                    camel(f.item_name()),
                    signature(resolve, f, 0)
                );
            }
            _ => {}
        }
    }
    format!("  export interface {name} {{\n{methods}  }}\n  export interface {name}Class {{\n{class}  }}\n")
}

/// The declarations of every interface of `amber:plugin`.
pub fn generate() -> Result<String> {
    let mut resolve = Resolve::default();
    let (package, _) = resolve
        .push_dir(root().join("wit"))
        .context("reading amber's WIT")?;
    let mut out = String::from(
        "// amber-plugin.d.ts: amber's WIT (`PACKAGE`) as TypeScript\n\
         // declarations, in the shapes componentize-js gives JavaScript plugins.\n\
         // Written by `cargo xtask js-types` from wit/; do not edit.\n\
         //\n\
         // A function whose WIT result is `result<T, E>` returns T, and fails\n\
         // by throwing `{ payload: E }` (the SDK's define functions do it).\n\n\
         export type Result<T, E> = { tag: \"ok\"; val: T } | { tag: \"err\"; val: E };\n",
    )
    // The version is the WIT's own, so a bump needs no edit here.
    .replacen("PACKAGE", &resolve.packages[package].name.to_string(), 1);
    let pkg = &resolve.packages[package];
    for (name, iface) in &pkg.interfaces {
        let iface = &resolve.interfaces[*iface];
        let _ = write!(
            out,
            "\n{}export namespace {} {{\n",
            doc(&iface.docs, ""),
            pascal(name)
        );
        for (type_name, id) in &iface.types {
            let def = &resolve.types[*id];
            let docs = doc(&def.docs, "  ");
            let name = pascal(type_name);
            let body = match &def.kind {
                TypeDefKind::Record(r) => {
                    let mut fields = String::new();
                    for f in &r.fields {
                        fields.push_str(&doc(&f.docs, "    "));
                        let _ =
                            writeln!(fields, "    {}: {};", camel(&f.name), ty(&resolve, &f.ty));
                    }
                    format!("  export interface {name} {{\n{fields}  }}\n")
                }
                TypeDefKind::Variant(v) => {
                    let cases: Vec<String> = v
                        .cases
                        .iter()
                        .map(|c| match &c.ty {
                            Some(t) => {
                                format!("{{ tag: \"{}\"; val: {} }}", c.name, ty(&resolve, t))
                            }
                            None => format!("{{ tag: \"{}\" }}", c.name),
                        })
                        .collect();
                    format!(
                        "  export type {name} =\n    | {};\n",
                        cases.join("\n    | ")
                    )
                }
                TypeDefKind::Enum(e) => {
                    let cases: Vec<String> =
                        e.cases.iter().map(|c| format!("\"{}\"", c.name)).collect();
                    format!("  export type {name} = {};\n", cases.join(" | "))
                }
                TypeDefKind::Resource => resource(&resolve, iface, *id, &name),
                TypeDefKind::Type(t) => format!("  export type {name} = {};\n", ty(&resolve, t)),
                _ => format!("  export type {name} = {};\n", id_ty(&resolve, *id)),
            };
            out.push_str(&docs);
            out.push_str(&body);
        }
        let functions: Vec<_> = iface
            .functions
            .values()
            .filter(|f| !f.name.starts_with('['))
            .collect();
        if !functions.is_empty() {
            let _ = writeln!(
                out,
                "  /** The interface's functions, as a plugin exports or imports them. */"
            );
            let _ = writeln!(out, "  export interface Functions {{");
            for f in functions {
                out.push_str(&doc(&f.docs, "    "));
                let _ = writeln!(out, "    {}{};", camel(&f.name), signature(&resolve, f, 0));
            }
            for (type_name, id) in &iface.types {
                if matches!(resolve.types[*id].kind, TypeDefKind::Resource) {
                    let name = pascal(type_name);
                    let _ = writeln!(
                        out,
                        "    /** The resource's class: its constructor and static functions. */\n    {name}: {name}Class;"
                    );
                }
            }
            let _ = writeln!(out, "  }}");
        }
        out.push_str("}\n");
    }
    Ok(out)
}

/// Writes the declarations; returns their path.
pub fn write() -> Result<PathBuf> {
    let path = path();
    std::fs::write(&path, generate()?)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_committed_declarations_match_the_wit() {
        let now = super::generate().unwrap();
        let committed = std::fs::read_to_string(super::path()).unwrap_or_default();
        assert!(
            now == committed,
            "sdk/js/amber-plugin.d.ts is not what the WIT says: run `cargo xtask js-types`"
        );
    }
}

//! `<default>` classes: an element's attribute is its own, else its class's default for its
//! kind of element, else the parent class's, up to the top-level default (`main`). An element's
//! class is its `class`, else the `childclass` of the nearest enclosing body that states one
//! (the body itself for the elements it holds), else `main`.

use std::collections::HashMap;

use roxmltree::Node;

use super::element::{Problem, element};
use super::orientation::parse;

/// The default classes of a file.
pub(super) struct Classes<'a, 'i> {
    /// Each class's `<default>` node and its parent class.
    classes: HashMap<&'a str, (Node<'a, 'i>, Option<&'a str>)>,
}

/// The name of the top-level default class.
pub(super) const MAIN: &str = "main";

impl<'a, 'i> Classes<'a, 'i> {
    /// The classes under the file's top-level `<default>` elements.
    pub fn of(root: Node<'a, 'i>) -> Result<Self, Problem> {
        let mut classes = HashMap::new();
        for top in root.children().filter(|n| n.has_tag_name("default")) {
            collect(top, None, &mut classes)?;
        }
        Ok(Classes { classes })
    }

    /// Attribute `name` of `node` (an element of kind `node.tag_name()`) in class `class`.
    pub fn attribute(&self, node: Node<'a, 'i>, class: &'a str, name: &str) -> Option<&'a str> {
        if let Some(v) = node.attribute(name) {
            return Some(v);
        }
        let kind = node.tag_name().name();
        let mut at = Some(node.attribute("class").unwrap_or(class));
        while let Some(c) = at {
            let (default, parent) = self.classes.get(c)?;
            let own = default.children().find(|n| n.has_tag_name(kind));
            if let Some(v) = own.and_then(|n| n.attribute(name)) {
                return Some(v);
            }
            at = *parent;
        }
        None
    }

    /// Attribute `name` of `node` in class `class` as `N` finite numbers (`None`: neither the
    /// node nor its class states it); `Err` names the attribute and its text.
    pub fn numbers<const N: usize>(
        &self,
        node: Node<'a, 'i>,
        class: &'a str,
        name: &str,
    ) -> Result<Option<[f64; N]>, Problem> {
        let Some(text) = self.attribute(node, class, name) else {
            return Ok(None);
        };
        let expected = match N {
            1 => "a finite number".to_string(),
            n => format!("{n} finite numbers"),
        };
        parse::<N>(text).map(Some).ok_or_else(|| {
            (
                element(node),
                format!("{name}=\"{text}\": expected {expected}"),
            )
        })
    }

    /// [`Classes::numbers`] of one number, `default` where it is not stated.
    pub fn number(
        &self,
        node: Node<'a, 'i>,
        class: &'a str,
        name: &str,
        default: f64,
    ) -> Result<f64, Problem> {
        Ok(self
            .numbers::<1>(node, class, name)?
            .map_or(default, |[v]| v))
    }

    /// Checks that `node`'s `class`, where it states one, is defined.
    pub fn check(&self, node: Node<'a, 'i>) -> Result<(), Problem> {
        match node.attribute("class") {
            Some(c) if !self.classes.contains_key(c) => Err((
                element(node),
                format!("class \"{c}\" is not defined (expected a <default class> of the file)"),
            )),
            _ => Ok(()),
        }
    }
}

/// Records `default` (class `main` where it names none at the top) and its nested classes.
fn collect<'a, 'i>(
    default: Node<'a, 'i>,
    parent: Option<&'a str>,
    classes: &mut HashMap<&'a str, (Node<'a, 'i>, Option<&'a str>)>,
) -> Result<(), Problem> {
    let name = match (default.attribute("class"), parent) {
        (Some(c), _) => c,
        (None, None) => MAIN,
        (None, Some(_)) => {
            return Err((
                element(default),
                "a nested <default> needs a class name".into(),
            ));
        }
    };
    if classes.insert(name, (default, parent)).is_some() {
        return Err((
            element(default),
            format!("class \"{name}\" is defined twice"),
        ));
    }
    for child in default.children().filter(|n| n.has_tag_name("default")) {
        collect(child, Some(name), classes)?;
    }
    Ok(())
}

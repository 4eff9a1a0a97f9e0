const ELEMENT_NODE = 1;
/** The element children of `el`, in order (text, comments and the rest skipped). */
export function childElements(el) {
    const out = [];
    for (let c = el.firstChild; c; c = c.nextSibling)
        if (c.nodeType === ELEMENT_NODE)
            out.push(c);
    return out;
}
/** The first child element named `name` (any namespace, or only `ns` when given). */
export function child(el, name, ns) {
    if (!el)
        return null;
    return childElements(el).find((c) => c.localName === name && (ns === undefined || c.namespaceURI === ns)) ?? null;
}
/** The element at a path of child names below `el` (`at(dte, 'Documento', 'Encabezado')`). */
export function at(el, ...path) {
    let node = el;
    for (const name of path)
        node = child(node, name);
    return node;
}
/** An element's text, trimmed; '' for a missing element. */
export const textOf = (el) => (el?.textContent ?? '').trim();

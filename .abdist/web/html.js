/**
 * Typed HTML templates: `html\`…\`` escapes everything interpolated unless it is already
 * `Html` (another template's output). Arrays are joined; null, undefined and false render as
 * nothing. There is no other way to put text into a page, so escaping cannot be forgotten.
 */
export class Html {
    value;
    constructor(value) {
        this.value = value;
    }
    toString() {
        return this.value;
    }
}
const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
function escapeHtml(text) {
    return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}
function render(v) {
    if (v instanceof Html)
        return v.value;
    if (Array.isArray(v))
        return v.map(render).join('');
    if (v === null || v === undefined || v === false || v === true)
        return '';
    return escapeHtml(String(v));
}
export function html(strings, ...values) {
    let out = strings[0] ?? '';
    for (let i = 0; i < values.length; i++)
        out += render(values[i]) + (strings[i + 1] ?? '');
    return new Html(out);
}
/** An attribute that is present or absent (`checked`, `selected`, `disabled`). */
export function attr(name, on) {
    return new Html(on ? ` ${name}` : '');
}

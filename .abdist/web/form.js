/**
 * Form bodies of the dashboard: `application/x-www-form-urlencoded` (parsed here with
 * URLSearchParams) and `multipart/form-data` (uploads, parsed by @fastify/multipart), both
 * turned into one `Form` so pages read fields the same way.
 */
export class Form {
    fields;
    files;
    constructor(fields, files = new Map()) {
        this.fields = fields;
        this.files = files;
    }
    static fromUrlEncoded(body) {
        const map = new Map();
        for (const [k, v] of new URLSearchParams(body))
            map.set(k, [...(map.get(k) ?? []), v]);
        return new Form(map);
    }
    /** The first value, trimmed ('' when absent). */
    get(name) {
        return (this.fields.get(name)?.[0] ?? '').trim();
    }
    /** The first value exactly as sent (passwords: spaces are significant). */
    raw(name) {
        return this.fields.get(name)?.[0] ?? '';
    }
    getAll(name) {
        return (this.fields.get(name) ?? []).map((v) => v.trim());
    }
    has(name) {
        return this.fields.has(name);
    }
    file(name) {
        return this.files.get(name);
    }
}
/**
 * A number as people type it in Chile: "1.350" and "1.350,5" use dots for thousands and a
 * comma for decimals; "1.5" (one dot, not three digits after it) is read as a decimal point,
 * as an integrator would write it. Returns undefined for empty text and NaN for garbage, which
 * the issue schema then refuses naming the field.
 */
export function parseNumber(text) {
    const s = text.replace(/\s/g, '').replace(/^\$/, '');
    if (s === '')
        return undefined;
    let normal;
    if (s.includes(','))
        normal = s.replace(/\./g, '').replace(',', '.');
    else if (/^\d{1,3}(\.\d{3})+$/.test(s))
        normal = s.replace(/\./g, '');
    else
        normal = s;
    return /^-?\d+(\.\d+)?$/.test(normal) ? Number(normal) : Number.NaN;
}

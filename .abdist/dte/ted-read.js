import { extractDd } from './ted.js';
import { flatten, unescapeXml } from './xml-text.js';
/** The first `<name>…</name>` of a flattened fragment, entities kept as written. */
function raw(fragment, name) {
    return new RegExp(`<${name}(?:\\s[^>]*)?>([^<]*)</${name}>`).exec(fragment)?.[1] ?? null;
}
function readTedCaf(dd) {
    const cafXml = /<CAF\b[^>]*>[\s\S]*<\/CAF>/.exec(dd)?.[0];
    const daXml = cafXml ? /<DA>[\s\S]*<\/DA>/.exec(cafXml)?.[0] : undefined;
    if (!cafXml || !daXml)
        return null;
    const values = {
        re: raw(daXml, 'RE'),
        td: raw(daXml, 'TD'),
        from: raw(daXml, 'D'),
        to: raw(daXml, 'H'),
        fa: raw(daXml, 'FA'),
        idk: raw(daXml, 'IDK'),
        modulus: raw(daXml, 'M'),
        exponent: raw(daXml, 'E'),
        frma: raw(cafXml.slice(cafXml.indexOf('</DA>')), 'FRMA'),
    };
    if (Object.values(values).some((v) => v === null))
        return null;
    const v = values;
    return {
        re: unescapeXml(v.re).trim(),
        td: Number(v.td),
        from: Number(v.from),
        to: Number(v.to),
        fa: v.fa.trim(),
        idk: Number(v.idk),
        modulus: v.modulus.trim(),
        exponent: v.exponent.trim(),
        frma: v.frma.replace(/\s+/g, ''),
        daXml: flatten(daXml),
        cafXml: flatten(cafXml),
    };
}
/** The TED of a DTE's text; null when it has none or misses a field. */
export function readTed(dteText) {
    const tedText = /<TED\b[^>]*>[\s\S]*?<\/TED>/.exec(dteText)?.[0];
    const dd = tedText ? extractDd(tedText) : null;
    if (!tedText || !dd)
        return null;
    // DD's own fields come before the CAF inside it (DTE_v10.xsd TED/DD sequence).
    const cafAt = dd.search(/<CAF\b/);
    const head = cafAt < 0 ? dd : dd.slice(0, cafAt);
    const fields = ['RE', 'TD', 'F', 'FE', 'RR', 'MNT'].map((n) => raw(head, n));
    const frmt = raw(tedText.replace(/>\s+</g, '><'), 'FRMT');
    if (fields.some((f) => f === null) || frmt === null)
        return null;
    const [re, td, f, fe, rr, mnt] = fields;
    return {
        dd,
        re: unescapeXml(re).trim(),
        td: td.trim(),
        f: f.trim(),
        fe: fe.trim(),
        rr: unescapeXml(rr).trim(),
        mnt: mnt.trim(),
        frmt: frmt.replace(/\s+/g, ''),
        caf: readTedCaf(dd),
    };
}

/**
 * XSD validation against the official SII schemas vendored in `resources/sii/schemas`
 * (provenance in resources/sii/PROVENANCE.md), with libxml2 compiled to WASM (the same engine
 * as xmllint; ~0.1 ms per document once a schema is loaded).
 *
 * Documents are passed as bytes: libxml2 then honours their ISO-8859-1 declaration, so
 * `maxLength` counts characters, not UTF-8 bytes (a UTF-8 string would count multi-byte characters twice).
 *
 * Compiled schemas are loaded once per process on first use and never change (a cache of
 * constants, not state).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { XmlDocument, XsdValidator } from 'libxml2-wasm';
import { xmlRegisterFsInputProviders } from 'libxml2-wasm/lib/nodejs.mjs';
export const SCHEMA_DIR = resolve('resources/sii/schemas');
const validators = new Map();
let providersRegistered = false;
function validator(name) {
    let v = validators.get(name);
    if (!v) {
        if (!providersRegistered) {
            // Lets the schemas' xs:include / xs:import resolve from disk.
            xmlRegisterFsInputProviders();
            providersRegistered = true;
        }
        const path = resolve(SCHEMA_DIR, name);
        const schemaDoc = XmlDocument.fromBuffer(readFileSync(path), { url: path });
        try {
            v = XsdValidator.fromDoc(schemaDoc);
        }
        finally {
            schemaDoc.dispose();
        }
        validators.set(name, v);
    }
    return v;
}
export function validateXml(bytes, schema) {
    let doc;
    try {
        doc = XmlDocument.fromBuffer(bytes);
    }
    catch (e) {
        return { valid: false, errors: [`not well-formed: ${e.message}`] };
    }
    try {
        const errors = validateParsed(doc, schema);
        return { valid: errors.length === 0, errors };
    }
    finally {
        doc.dispose();
    }
}
/** XSD errors of an already parsed document (none: valid). */
function validateParsed(doc, schema) {
    try {
        validator(schema).validate(doc);
        return [];
    }
    catch (e) {
        const details = e.details;
        return details?.length ? details.map((d) => `line ${d.line ?? '?'}: ${d.message.trim()}`) : [e.message];
    }
}
/** A single signed DTE: DTE_v10.xsd, or the boleta schema for types 39 and 41. */
export function validateDte(bytes) {
    return validateXml(bytes, dteSchemaOf(bytes));
}
/** The XSD errors of a single signed DTE already parsed from `bytes` (none: valid). */
export function validateParsedDte(doc, bytes) {
    return validateParsed(doc, dteSchemaOf(bytes));
}
function dteSchemaOf(bytes) {
    const head = Buffer.from(bytes.subarray(0, 600)).toString('latin1');
    return /<TipoDTE>\s*(39|41)\s*<\/TipoDTE>/.test(head) ? 'timbre-boleta-dte.xsd' : 'DTE_v10.xsd';
}

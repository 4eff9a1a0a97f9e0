/**
 * Seeds and tokens, as the SII's automatic authentication hands them out (docs/sii-reference.md §7.2,
 * [AUTH] §4–§6): a seed (SEMILLA, 12 digits) lives 2 minutes and is good for one token; the
 * client signs `<getToken><item><Semilla>…</Semilla></item></getToken>` enveloped (URI="")
 * with its certificate; the SII verifies that signature, reads the holder's RUT from the
 * certificate and answers a TOKEN.
 *
 * Two services hand out seeds and tokens: the DTEWS SOAP services (facturas) and the boleta
 * REST API. A token of one is not valid on the other (docs/sii-reference.md §7.2 item 4, [BOLT]), and
 * neither is a seed: each service keeps its own.
 *
 * getToken answers ESTADO codes of [AUTH] §5.2.2: 00 token creado; 01 empty input; 02 not
 * well-formed; 04 no Signature; 05 firma inválida (also a Reference other than URI=""); 06 no
 * Semilla; 08 seed unknown / used / expired ("TIME-OUT DEL SEED"); 11 no certificate; 21
 * KeyValue and certificate hold different keys; -3 certificate outside its validity;
 * -07 certificate without the holder RUT (OtherName 1.3.6.1.4.1.8321.1).
 */
import { childElements } from '../dte/dom.js';
import { randomBytes, randomInt } from 'node:crypto';
import { holderRutOfCertificate } from '../dte/certificate.js';
import { parseXml, stripXmlDeclaration, verifyRootSignature } from '../dte/xmldsig.js';
export const SEED_TTL_MS = 2 * 60_000;
export const DEFAULT_TOKEN_TTL_MS = 30 * 60_000;
/**
 * The holder RUT of an X.509 certificate (DER): the SubjectAltName otherName with the SII's
 * OID (docs/sii-reference.md §1); node:crypto shows it only as "othername:<unsupported>".
 */
function holderRutOf(der) {
    return holderRutOfCertificate(der);
}
const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
function newTokenValue() {
    // SII tokens are 13 letters and digits, e.g. XAuSbYXiNh9Ik ([AUTH] §5.2.3.2).
    return [...randomBytes(13)].map((b) => TOKEN_ALPHABET[b % TOKEN_ALPHABET.length]).join('');
}
function childByLocalName(el, name) {
    return el ? (childElements(el).find((c) => c.localName === name) ?? null) : null;
}
/** The structure of `<getToken><item><Semilla/></item><Signature/></getToken>` (ESTADO 01, 02, 04, 06, 11). */
function readSignedSeed(xml) {
    if (xml === '')
        return { estado: '01', glosa: 'XML Invalido, error de lectura (IO)' };
    let root;
    try {
        root = parseXml(xml).documentElement;
    }
    catch {
        root = null;
    }
    if (!root)
        return { estado: '02', glosa: 'XML Invalido, error SAX' };
    const signature = childByLocalName(root, 'Signature');
    if (!signature)
        return { estado: '04', glosa: 'XML Invalido, no contiene firma' };
    const semilla = childByLocalName(childByLocalName(root, 'item'), 'Semilla')?.textContent?.trim() ?? '';
    if (root.localName !== 'getToken' || semilla === '')
        return { estado: '06', glosa: 'XML Invalido, no existe semilla' };
    const x509 = childByLocalName(childByLocalName(signature, 'KeyInfo'), 'X509Data');
    if (!childByLocalName(x509, 'X509Certificate')?.textContent?.trim()) {
        return { estado: '11', glosa: 'No existe certificado en la firma' };
    }
    return { semilla };
}
/** The enveloped signature over the whole document ([AUTH] §4.1.5, Reference URI=""): ESTADO 05, 21. */
function verifySeedSignature(xml) {
    const check = verifyRootSignature(xml);
    if (!check.valid || check.referenceUri !== '') {
        return { estado: '05', glosa: 'XML Invalido, firma invalida, funcion valSignedXml' };
    }
    if (check.certificateMatchesKey === false || !check.certificate) {
        return { estado: '21', glosa: 'Llave publica no corresponde al certificado' };
    }
    return check.certificate;
}
export class AuthStore {
    clock;
    tokenTtlMs;
    seedTtlMs;
    seeds = new Map();
    tokens = new Map();
    constructor(clock, tokenTtlMs, seedTtlMs = SEED_TTL_MS) {
        this.clock = clock;
        this.tokenTtlMs = tokenTtlMs;
        this.seedTtlMs = seedTtlMs;
    }
    now() {
        return this.clock().getTime();
    }
    issueSeed(service) {
        this.forgetStaleSeeds();
        let value;
        do
            value = String(randomInt(1, 999_999_999_999)).padStart(12, '0');
        while (this.seeds.has(value));
        this.seeds.set(value, { service, issuedAt: this.now(), used: false });
        return value;
    }
    /** getToken(pszXml): verifies the signed seed and issues a token of `service`. */
    exchange(service, pszXml) {
        const xml = stripXmlDeclaration(pszXml.trim());
        const request = readSignedSeed(xml);
        if ('estado' in request)
            return request;
        const signer = verifySeedSignature(xml);
        if ('estado' in signer)
            return signer;
        const seedError = this.consumeSeed(service, request.semilla);
        if (seedError)
            return { estado: '08', glosa: seedError };
        const now = this.now();
        if (new Date(signer.validFrom).getTime() > now || new Date(signer.validTo).getTime() < now) {
            return { estado: '-3', glosa: 'Error en autenticacion: certificado no vigente' };
        }
        const holderRut = holderRutOf(Buffer.from(signer.raw));
        if (!holderRut)
            return { estado: '-07', glosa: 'RUT no registrado para autenticacion con certificado' };
        return { estado: '00', token: this.issueToken(service, holderRut) };
    }
    /** Seeds past their lifetime can never be used again; dropping them bounds the map. */
    forgetStaleSeeds() {
        if (this.seeds.size < 1_000)
            return;
        const limit = this.now() - this.seedTtlMs;
        for (const [value, seed] of this.seeds)
            if (seed.issuedAt < limit)
                this.seeds.delete(value);
    }
    /** Marks the seed used; a glosa of ESTADO 08 when it cannot be used. */
    consumeSeed(service, value) {
        const seed = this.seeds.get(value);
        if (!seed || seed.service !== service)
            return 'NO EXISTE SEED';
        if (seed.used)
            return 'SEED YA UTILIZADO';
        if (this.now() - seed.issuedAt > this.seedTtlMs)
            return 'TIME-OUT DEL SEED';
        seed.used = true;
        return null;
    }
    issueToken(service, holderRut) {
        const value = newTokenValue();
        this.tokens.set(value, { value, service, holderRut, expiresAt: this.now() + this.tokenTtlMs });
        return value;
    }
    /** Checks a token of `service` (a token of the other service does not exist here). */
    check(service, value) {
        if (!value)
            return { ok: false, estado: '001', glosa: 'Cookie Inactivo' };
        const token = this.tokens.get(value);
        if (!token || token.service !== service)
            return { ok: false, estado: '003', glosa: 'Token No Existe' };
        if (token.expiresAt <= this.now())
            return { ok: false, estado: '002', glosa: 'Token Inactivo' };
        return { ok: true, token };
    }
    /** Every token issued so far stops working (tests of re-authentication). */
    expireAll() {
        const now = this.now();
        for (const token of this.tokens.values())
            token.expiresAt = Math.min(token.expiresAt, now);
    }
}

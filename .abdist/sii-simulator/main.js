/**
 * `npm run sii-sim`: the SII simulator as a standalone process, for running Timbre offline.
 *
 * Environment (the simulator's own; Timbre's config.ts does not read these):
 *   SII_SIM_PORT            port, default 4455
 *   SII_SIM_HOST            bind address, default 127.0.0.1 (the control API /sim/… is unauthenticated)
 *   SII_SIM_DATA_DIR        where the CAF-signing key pair is kept, default .data
 *   SII_SIM_STEP_DELAY_MS   delay of each processing step, default 1000
 *
 * The CAF-signing key is kept in SII_SIM_DATA_DIR (sii-sim-caf-key.private.pem), so CAFs handed
 * out before a restart stay trusted; its public half is written to sii-sim-caf-key.pem, the
 * file TIMBRE_EXTRA_CAF_KEYS must name. Everything else lives in memory and is lost on exit.
 * At start it prints the environment lines a Timbre operator sets to use it.
 *
 * `npm run sii-sim -- send-supplier-dte --to RUT --imap-host H --imap-user U --imap-password P
 *   [--imap-port N] [--imap-tls implicit|starttls|none] [--imap-folder F] [--folio N] [--tamper]`
 * instead plays a supplier once: a stand-in supplier's EnvioDTE of one factura to RUT, with a CAF
 * signed by the key in SII_SIM_DATA_DIR, e-mailed into that IMAP mailbox (APPEND); it prints
 * the message's UID as JSON.
 */
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { generateTestCertificate } from '../dte/certificate.js';
import { BOLETA_PREFIX } from './boleta-rest.js';
import { parseArgs } from 'node:util';
import { createSiiSimulator } from './simulator.js';
import { sendSupplierDte, standInSupplier } from './supplier.js';
function intFromEnv(name, fallback) {
    const raw = process.env[name];
    if (raw === undefined || raw === '')
        return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0) {
        console.error(`${name} must be a non-negative integer, got "${raw}"`);
        process.exit(1);
    }
    return n;
}
/** The persisted CAF-signing key, created on first start. */
function loadOrCreateKey(dir) {
    mkdirSync(dir, { recursive: true });
    const privatePath = resolve(dir, 'sii-sim-caf-key.private.pem');
    const publicPemPath = resolve(dir, 'sii-sim-caf-key.pem');
    let key;
    if (existsSync(privatePath)) {
        key = createPrivateKey(readFileSync(privatePath));
    }
    else {
        key = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
        writeFileSync(privatePath, key.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    }
    return { key, publicPemPath };
}
/**
 * A signing certificate for trying Timbre against the simulator: the simulator, like the SII,
 * accepts any certificate with a holder RUT whose signature verifies (it has no CA list), and a
 * newcomer has no real one at hand. Kept in the data dir with its password beside it.
 */
function loadOrCreateTestCertificate(dir) {
    const path = resolve(dir, 'sii-sim-firma.p12');
    const passwordPath = resolve(dir, 'sii-sim-firma.password');
    if (existsSync(path) && existsSync(passwordPath)) {
        return { path, password: readFileSync(passwordPath, 'utf8').trim(), passwordPath };
    }
    const { p12, password } = generateTestCertificate({
        holderRut: '13185095-6',
        name: 'FIRMANTE DE PRUEBA SII SIMULADO',
    });
    writeFileSync(path, p12, { mode: 0o600 });
    writeFileSync(passwordPath, `${password}\n`, { mode: 0o600 });
    return { path, password, passwordPath };
}
async function main() {
    const port = intFromEnv('SII_SIM_PORT', 4455);
    const host = process.env.SII_SIM_HOST || '127.0.0.1';
    const dataDir = resolve(process.env.SII_SIM_DATA_DIR || '.data');
    const { key, publicPemPath } = loadOrCreateKey(dataDir);
    const sim = createSiiSimulator({
        cafSigningKey: key,
        stepDelayMs: intFromEnv('SII_SIM_STEP_DELAY_MS', 1_000),
    });
    writeFileSync(publicPemPath, sim.cafPublicKeyPem);
    const { url } = await sim.listen(port, host);
    // The URL a client uses: a wildcard bind is still reached through the loopback address.
    const base = host === '0.0.0.0' || host === '::' ? `http://127.0.0.1:${new URL(url).port}` : url;
    const cert = loadOrCreateTestCertificate(dataDir);
    process.stderr.write(`sii-sim: listening on ${base}. Set the lines below in Timbre's environment (.env).\n` +
        `sii-sim: a test signing certificate (holder 13185095-6) for live issuers: ${cert.path}\n` +
        `sii-sim:   npm run cli -- cert import --rut <issuer RUT> --file ${cert.path} --password-stdin < ${cert.passwordPath}\n`);
    process.stdout.write([
        `SII_DTEWS_URL=${base}`,
        `SII_UPLOAD_URL=${base}`,
        `SII_PORTAL_URL=${base}`,
        `SII_BOLETA_API_URL=${base}${BOLETA_PREFIX}`,
        `SII_BOLETA_UPLOAD_URL=${base}${BOLETA_PREFIX}`,
        `SII_RPETC_URL=${base}`,
        `TIMBRE_EXTRA_CAF_KEYS=${publicPemPath}`,
        '',
    ].join('\n'));
    let stopping = false;
    const stop = (signal) => {
        if (stopping)
            return;
        stopping = true;
        process.stderr.write(`sii-sim: ${signal}, stopping\n`);
        sim.close().then(() => process.exit(0), (e) => {
            process.stderr.write(`sii-sim: ${e.message}\n`);
            process.exit(1);
        });
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
}
async function sendSupplierCommand(args) {
    const { values } = parseArgs({
        args,
        options: {
            to: { type: 'string' },
            folio: { type: 'string' },
            tamper: { type: 'boolean' },
            'imap-host': { type: 'string' },
            'imap-port': { type: 'string' },
            'imap-tls': { type: 'string' },
            'imap-user': { type: 'string' },
            'imap-password': { type: 'string' },
            'imap-folder': { type: 'string' },
        },
        strict: true,
    });
    const need = (name) => {
        const v = values[name];
        if (typeof v !== 'string' || !v)
            throw new Error(`--${name} is required`);
        return v;
    };
    const tls = values['imap-tls'] ?? 'implicit';
    if (tls !== 'implicit' && tls !== 'starttls' && tls !== 'none') {
        throw new Error('--imap-tls must be implicit, starttls or none');
    }
    const { key } = loadOrCreateKey(resolve(process.env.SII_SIM_DATA_DIR || '.data'));
    const delivered = await sendSupplierDte(standInSupplier({ cafKey: key }), {
        toRut: need('to'),
        folio: Number(values.folio ?? Math.floor(Math.random() * 400) + 1),
        tamper: values.tamper === true,
        mailbox: {
            host: need('imap-host'),
            port: Number(values['imap-port'] ?? (tls === 'implicit' ? 993 : 143)),
            tls,
            user: need('imap-user'),
            password: need('imap-password'),
            ...(values['imap-folder'] && { folder: values['imap-folder'] }),
        },
    });
    process.stdout.write(`${JSON.stringify(delivered)}\n`);
}
const command = process.argv[2] === 'send-supplier-dte' ? sendSupplierCommand(process.argv.slice(3)) : main();
command.catch((e) => {
    process.stderr.write(`sii-sim: ${e.message}\n`);
    process.exit(1);
});

/**
 * Operator CLI: `npm run cli -- <command> [flags] [--json]` (docs/design.md §5 "Admin" — the command
 * names, flags and JSON shapes are a contract; scripts depend on them). Human output by
 * default; `--json` prints exactly one JSON object on stdout. Any failure exits non-zero with a
 * clear message on stderr (1: refused/failed, 2: usage). It reaches the same database as the
 * service, including the embedded one, whether or not the service is running.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { apiKeyView, createApiKey, listApiKeys, revokeApiKey } from './admin/api-keys.js';
import { cafView, importCaf } from './admin/cafs.js';
import { certificateView, importCertificate } from './admin/certificates.js';
import { createIssuer, deactivateIssuer, findIssuerOrThrow, issuerView, listIssuers, updateIssuer, } from './admin/issuers.js';
import { ConfigError, loadConfig, parseConfig } from './config.js';
import { createKeyCaches } from './context.js';
import { openDatabase } from './db/database.js';
import { pruneEmbeddedClusters } from './db/embedded.js';
import { createSignInToken, createUser, deactivateUser, listUsers, resetPassword, userView } from './admin/users.js';
import { randomBytes } from 'node:crypto';
import { dateOfInstantInSantiago } from './dte/chile-time.js';
import { createPdfRenderer } from './dte/pdf/renderer.js';
import { createSigner } from './dte/signing/pool.js';
import { AppError } from './errors.js';
import { loggerOptions } from './logger.js';
import { findMailbox, getMailbox, MAILBOX_TLS, mailboxView, removeMailbox, setMailbox, testMailbox, } from './receiving/mailbox-settings.js';
import { createSiiClient } from './sii/client.js';
const USAGE = `Usage: npm run cli -- <command> [flags] [--json]

  issuer create --rut R --name N --giro G --acteco CODE [--acteco CODE…] --address A --comuna C
                [--city X] [--ambiente 0|1] [--vat-rate 19] [--resolution-date YYYY-MM-DD]
                [--resolution-number N] [--sii-office UNIT] [--account ID]
  issuer update --rut R [same flags as create] [--folio-alert TYPE=N|TYPE=default …]
  issuer deactivate --rut R
  issuer list
  cert import --rut R --file F.p12 [--password-stdin | --password P]
                (no password flag in a terminal: asked for, without echo)
  caf import --rut R --file F.xml
  key create --rut R --role owner|editor|viewer [--name "ERP contabilidad"]
  key revoke --id ID
  key list --rut R
  user create --account ID|--rut R --email E --role owner|editor|viewer [--password-stdin]
  user reset-password --email E [--password-stdin]
  user list [--account ID|--rut R]
  user deactivate --email E
  mailbox set --rut R --host H --user U [--port N] [--tls implicit|starttls|none] [--folder INBOX]
              [--answer-by-email on|off] [--password-stdin | --password P]
                (the password: required for a new mailbox, kept when omitted on an existing one)
  mailbox show --rut R
  mailbox test --rut R
  mailbox remove --rut R
  db prune [--stop-running] [--unmarked]
                remove the embedded PostgreSQL clusters (as root, under /var/lib/timbre-pg) whose
                data directory is gone; --stop-running also stops servers still running on them,
                --unmarked also removes stopped clusters made before their owner was recorded

  --password-stdin   read the password from standard input (user commands: else one is generated
                     and shown once; cert import: else --password or a prompt in a terminal)
  --json   print one JSON object on stdout

A password given with --password shows in process lists (ps) and shell history: prefer
--password-stdin (e.g. \`--password-stdin < file\`) or the prompt. A password that begins with
"-" works in both --password=-x… and --password -x… forms.`;
class UsageError extends Error {
}
const OPTIONS = {
    rut: { type: 'string' },
    name: { type: 'string' },
    giro: { type: 'string' },
    acteco: { type: 'string', multiple: true },
    address: { type: 'string' },
    comuna: { type: 'string' },
    city: { type: 'string' },
    ambiente: { type: 'string' },
    'vat-rate': { type: 'string' },
    'resolution-date': { type: 'string' },
    'resolution-number': { type: 'string' },
    'sii-office': { type: 'string' },
    account: { type: 'string' },
    'folio-alert': { type: 'string', multiple: true },
    file: { type: 'string' },
    password: { type: 'string' },
    'password-stdin': { type: 'boolean' },
    role: { type: 'string' },
    id: { type: 'string' },
    email: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
    tls: { type: 'string' },
    user: { type: 'string' },
    folder: { type: 'string' },
    'answer-by-email': { type: 'string' },
    'stop-running': { type: 'boolean' },
    unmarked: { type: 'boolean' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
};
function need(flags, name) {
    const v = flags[name];
    if (typeof v !== 'string' || v === '')
        throw new UsageError(`--${name} is required`);
    return v;
}
function int(flags, name) {
    const v = flags[name];
    if (v === undefined)
        return undefined;
    if (!/^\d+$/.test(v))
        throw new UsageError(`--${name} must be a whole number`);
    return Number(v);
}
function issuerFields(flags) {
    const acteco = flags.acteco
        ?.flatMap((a) => a.split(','))
        .map((a) => a.trim())
        .filter(Boolean);
    const fields = {};
    if (flags.name !== undefined)
        fields.name = flags.name;
    if (flags.giro !== undefined)
        fields.giro = flags.giro;
    if (acteco !== undefined)
        fields.acteco = acteco;
    if (flags.address !== undefined)
        fields.address = flags.address;
    if (flags.comuna !== undefined)
        fields.comuna = flags.comuna;
    if (flags.city !== undefined)
        fields.city = flags.city;
    const ambiente = int(flags, 'ambiente');
    if (ambiente !== undefined)
        fields.ambiente = ambiente;
    const vat = int(flags, 'vat-rate');
    if (vat !== undefined)
        fields.vatRate = vat;
    if (flags['resolution-date'] !== undefined)
        fields.resolutionDate = flags['resolution-date'];
    const resNumber = int(flags, 'resolution-number');
    if (resNumber !== undefined)
        fields.resolutionNumber = resNumber;
    // The SII unit printed "S.I.I. - <unit>" (MUE §1.1.7); an empty value clears it.
    if (flags['sii-office'] !== undefined)
        fields.siiOffice = flags['sii-office'].trim() || null;
    return fields;
}
function readInput(path) {
    try {
        return readFileSync(path);
    }
    catch (e) {
        throw new AppError('VALIDATION_FAILED', `Cannot read ${path}: ${e.code ?? e.message}`);
    }
}
function table(rows, columns) {
    if (rows.length === 0)
        return '(none)';
    const cells = rows.map((r) => columns.map((c) => (r[c] === null || r[c] === undefined ? '' : String(r[c]))));
    const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => (row[i] ?? '').length)));
    const line = (values) => values
        .map((v, i) => v.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd();
    return [line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join('\n');
}
/** The password for `user create|reset-password`: from stdin, or a generated one (shown once). */
async function passwordFor(flags, io) {
    if (flags['password-stdin']) {
        const text = (await (io.readStdin ?? readAllStdin)()).replace(/\r?\n$/, '');
        if (!text)
            throw new UsageError('--password-stdin: standard input was empty');
        return { password: text, generated: false };
    }
    return { password: randomBytes(15).toString('base64url'), generated: true };
}
async function accountOf(ctx, flags) {
    if (flags.account)
        return flags.account;
    if (flags.rut) {
        return (await findIssuerOrThrow(ctx, flags.rut, { includeInactive: true })).accountId;
    }
    return undefined;
}
/**
 * The .p12 password: `--password-stdin` (the whole of stdin, without its final newline),
 * `--password P`, or, in a terminal, a prompt that does not echo. An empty password is a
 * valid .p12 password only when given explicitly (`--password=`).
 */
async function certificatePassword(flags, file, io) {
    if (flags['password-stdin']) {
        if (flags.password !== undefined)
            throw new UsageError('give either --password or --password-stdin, not both');
        if (!io.readStdin)
            throw new UsageError('--password-stdin: no standard input');
        return (await io.readStdin()).replace(/\r?\n$/, '');
    }
    if (flags.password !== undefined)
        return flags.password;
    if (io.promptHidden)
        return io.promptHidden(`Password of ${file}: `);
    throw new UsageError('--password-stdin or --password is required (no terminal to ask in)');
}
/**
 * `--password -x…`: node's parseArgs refuses an option value that begins with "-" (it could be
 * a forgotten value followed by another flag), but a password is opaque and may well begin
 * with "-". The argument after `--password` is always its value.
 */
function joinPasswordValue(argv) {
    const out = [];
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i];
        if (arg === '--password' && i + 1 < argv.length) {
            out.push(`--password=${argv[i + 1]}`);
            i++;
        }
        else {
            out.push(arg);
        }
    }
    return out;
}
/** `--folio-alert 33=50 --folio-alert 39=default` → { "33": 50, "39": null }. */
function folioAlerts(values) {
    const out = {};
    for (const v of values) {
        const m = /^(\d+)=(\d+|default)$/.exec(v);
        if (!m?.[1] || !m[2])
            throw new UsageError(`--folio-alert takes TYPE=N or TYPE=default (got ${v})`);
        out[m[1]] = m[2] === 'default' ? null : Number(m[2]);
    }
    return out;
}
async function pruneClusters(flags) {
    const clusters = await pruneEmbeddedClusters({ stopRunning: flags['stop-running'], unmarked: flags.unmarked });
    const line = (c) => {
        const of = c.dataDir === null ? 'no recorded data directory' : `data directory ${c.dataDir} is gone`;
        if (c.removed)
            return `removed ${c.home} (${of}${c.running ? ', server stopped' : ''})`;
        const why = c.running
            ? 'a server is running on it; --stop-running'
            : 'made before owners were recorded; --unmarked';
        return `kept ${c.home} (${of}: ${why} removes it)`;
    };
    return {
        json: { ok: true, clusters },
        human: clusters.length === 0 ? 'no orphan embedded PostgreSQL clusters' : clusters.map(line).join('\n'),
    };
}
function mailboxLine(v) {
    const tls = { implicit: 'TLS', starttls: 'STARTTLS', none: 'no TLS' }[v.tls];
    return `${v.user}@${v.host}:${v.port} (${tls}), folder ${v.folder}, answers by e-mail ${v.answer_by_email ? 'on' : 'off'}`;
}
async function run(ctx, command, flags, io) {
    switch (command) {
        case 'user create': {
            if (!flags.account && !flags.rut)
                throw new UsageError('user create needs --account ID or --rut R');
            const { password, generated } = await passwordFor(flags, io);
            const user = await createUser(ctx, {
                ...(flags.account ? { accountId: flags.account } : { rut: need(flags, 'rut') }),
                email: need(flags, 'email'),
                role: need(flags, 'role'),
                password,
            });
            const link = `${ctx.config.publicBaseUrl}/dashboard/enlace/${await createSignInToken(ctx, user.id)}`;
            return {
                json: { id: user.id, email: user.email, role: user.role, ...(generated && { password }), sign_in_url: link },
                human: `Created ${user.role} user ${user.email} (${user.id}).${generated ? `\n\n  Password: ${password}   (shown once)` : ''}\n  One-time sign-in link (24 h): ${link}`,
            };
        }
        case 'user reset-password': {
            const { password, generated } = await passwordFor(flags, io);
            const user = await resetPassword(ctx, { email: need(flags, 'email'), password });
            return {
                json: { id: user.id, email: user.email, role: user.role, ...(generated && { password }) },
                human: `New password set for ${user.email}; their sessions were closed.${generated ? `\n\n  Password: ${password}   (shown once)` : ''}`,
            };
        }
        case 'user list': {
            const users = (await listUsers(ctx, await accountOf(ctx, flags))).map(userView);
            return { json: { users }, human: table(users, ['email', 'role', 'active', 'account_id', 'last_sign_in_at']) };
        }
        case 'user deactivate': {
            const v = userView(await deactivateUser(ctx, need(flags, 'email')));
            return { json: v, human: `Deactivated ${v.email}; their sessions were closed.` };
        }
        case 'issuer create': {
            const f = issuerFields(flags);
            const issuer = await createIssuer(ctx, {
                ...f,
                rut: need(flags, 'rut'),
                name: need(flags, 'name'),
                giro: need(flags, 'giro'),
                acteco: f.acteco ?? need(flags, 'acteco'),
                address: need(flags, 'address'),
                comuna: need(flags, 'comuna'),
                ...(flags.account !== undefined && { accountId: flags.account }),
            });
            const v = issuerView(issuer);
            return { json: v, human: `Created issuer ${v.rut} (${v.name}), ${v.env}, account ${v.account_id}` };
        }
        case 'issuer update': {
            const fields = issuerFields(flags);
            if (flags['folio-alert'])
                fields.folioAlerts = folioAlerts(flags['folio-alert']);
            if (Object.keys(fields).length === 0)
                throw new UsageError('issuer update needs at least one field flag');
            const v = issuerView(await updateIssuer(ctx, need(flags, 'rut'), fields));
            return { json: v, human: `Updated issuer ${v.rut} (${v.name}), ${v.env}` };
        }
        case 'issuer deactivate': {
            const v = issuerView(await deactivateIssuer(ctx, need(flags, 'rut')));
            return { json: v, human: `Deactivated issuer ${v.rut}; its API calls now answer 404.` };
        }
        case 'issuer list': {
            const issuers = (await listIssuers(ctx)).map(issuerView);
            return {
                json: { issuers },
                human: table(issuers, ['rut', 'name', 'env', 'active', 'account_id']),
            };
        }
        case 'cert import': {
            const rut = need(flags, 'rut');
            const file = need(flags, 'file');
            const p12 = readInput(file);
            const password = await certificatePassword(flags, file, io);
            const cert = await importCertificate(ctx, { rut, p12, password });
            const v = certificateView(cert);
            // Validity is two instants; a person reads them as days in Santiago.
            const from = dateOfInstantInSantiago(cert.notBefore);
            const until = dateOfInstantInSantiago(cert.notAfter);
            return {
                json: v,
                human: `Imported certificate of ${v.subject} (holder ${v.holder_rut}), valid ${from} → ${until} (Santiago)`,
            };
        }
        case 'caf import': {
            const rut = need(flags, 'rut');
            const v = cafView(await importCaf(ctx, { rut, xml: readInput(need(flags, 'file')) }));
            return { json: v, human: `Imported CAF for type ${v.type}: folios ${v.from}–${v.to} (id ${v.id})` };
        }
        case 'key create': {
            const { record, key, issuer } = await createApiKey(ctx, {
                rut: need(flags, 'rut'),
                role: need(flags, 'role'),
                ...(typeof flags.name === 'string' && { name: flags.name }),
            });
            return {
                json: { id: record.id, key, name: record.name, role: record.role, rut: issuer.rut, prefix: record.prefix },
                human: `Created ${record.role} key ${record.id} for ${issuer.rut}:\n\n  ${key}\n\nThis is the only time the key is shown.`,
            };
        }
        case 'key revoke': {
            const k = await revokeApiKey(ctx, need(flags, 'id'));
            return { json: apiKeyView(k), human: `Revoked key ${k.id} (${k.prefix}…)` };
        }
        case 'key list': {
            const rut = need(flags, 'rut');
            const keys = (await listApiKeys(ctx, rut)).map((k) => apiKeyView(k));
            return {
                json: { keys },
                human: table(keys, ['id', 'prefix', 'role', 'status', 'created_at', 'last_used_at']),
            };
        }
        case 'mailbox set': {
            const issuer = await findIssuerOrThrow(ctx, need(flags, 'rut'), { includeInactive: true });
            const tls = flags.tls;
            if (tls !== undefined && !MAILBOX_TLS.includes(tls)) {
                throw new UsageError('--tls must be implicit, starttls or none');
            }
            const port = flags.port;
            if (port !== undefined && !/^\d{1,5}$/.test(port))
                throw new UsageError('--port must be a port number');
            const answer = flags['answer-by-email'];
            if (answer !== undefined && answer !== 'on' && answer !== 'off') {
                throw new UsageError('--answer-by-email must be on or off');
            }
            const asked = flags['password-stdin'] ||
                flags.password !== undefined ||
                (io.promptHidden && !(await findMailbox(ctx, issuer)));
            const password = asked ? await certificatePassword(flags, 'the mailbox', io) : undefined;
            const m = await setMailbox(ctx, issuer, {
                host: need(flags, 'host'),
                user: need(flags, 'user'),
                ...(port !== undefined && { port: Number(port) }),
                ...(tls !== undefined && { tls: tls }),
                ...(flags.folder !== undefined && { folder: flags.folder }),
                ...(answer !== undefined && { answerByEmail: answer === 'on' }),
                ...(password !== undefined && { password }),
            });
            const v = await mailboxView(ctx, m);
            return { json: v, human: `Mailbox of ${issuer.rut}: ${mailboxLine(v)}` };
        }
        case 'mailbox show': {
            const issuer = await findIssuerOrThrow(ctx, need(flags, 'rut'), { includeInactive: true });
            const v = await mailboxView(ctx, await getMailbox(ctx, issuer));
            const state = v.last_error
                ? `last error ${v.last_error_at}: ${v.last_error}`
                : v.last_ok_at
                    ? `last read ${v.last_ok_at}`
                    : 'not read yet';
            return {
                json: v,
                human: `Mailbox of ${issuer.rut}: ${mailboxLine(v)}\n  ${v.messages_read} messages read (UID ≤ ${v.last_uid}); ${state}`,
            };
        }
        case 'mailbox test': {
            const issuer = await findIssuerOrThrow(ctx, need(flags, 'rut'), { includeInactive: true });
            const result = await testMailbox(ctx, issuer);
            if (!result.ok)
                throw new AppError('VALIDATION_FAILED', result.message);
            return { json: result, human: result.message };
        }
        case 'mailbox remove': {
            const issuer = await findIssuerOrThrow(ctx, need(flags, 'rut'), { includeInactive: true });
            await removeMailbox(ctx, issuer);
            return { json: { ok: true }, human: `Removed the mailbox settings of ${issuer.rut}` };
        }
        default:
            throw new UsageError(`unknown command "${command}"`);
    }
}
async function readAllStdin() {
    const chunks = [];
    for await (const chunk of process.stdin)
        chunks.push(chunk);
    return Buffer.concat(chunks).toString('utf8');
}
/** Reads a line from the terminal in raw mode, echoing nothing; Ctrl-C / Ctrl-D abort. */
function promptHiddenOnTty(prompt) {
    return new Promise((resolve, reject) => {
        const stdin = process.stdin;
        process.stderr.write(prompt);
        stdin.setRawMode(true);
        stdin.resume();
        let value = '';
        const done = (err) => {
            stdin.setRawMode(false);
            stdin.pause();
            stdin.off('data', onData);
            process.stderr.write('\n');
            if (err)
                reject(err);
            else
                resolve(value);
        };
        const onData = (data) => {
            for (const ch of data.toString('utf8')) {
                if (ch === '\r' || ch === '\n')
                    return done();
                if (ch === '\u0003' || ch === '\u0004')
                    return done(new UsageError('cancelled'));
                if (ch === '\u007f' || ch === '\b')
                    value = [...value].slice(0, -1).join('');
                else
                    value += ch;
            }
        };
        stdin.on('data', onData);
    });
}
const processIo = {
    env: process.env,
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    readStdin: readAllStdin,
    ...(process.stdin.isTTY && process.stderr.isTTY ? { promptHidden: promptHiddenOnTty } : {}),
};
/** Runs one CLI command; returns the exit code. Tests call it in-process with their own io. */
export async function runCli(argv, io = processIo) {
    let parsed;
    try {
        parsed = parseArgs({ args: joinPasswordValue(argv), options: OPTIONS, allowPositionals: true, strict: true });
    }
    catch (e) {
        io.stderr(`error: ${e.message}\n\n${USAGE}\n`);
        return 2;
    }
    const { values: flags, positionals } = parsed;
    if (flags.help || positionals.length === 0) {
        io.stdout(`${USAGE}\n`);
        return flags.help ? 0 : 2;
    }
    const command = positionals.slice(0, 2).join(' ');
    let config;
    try {
        config = io === processIo ? loadConfig() : parseConfig(io.env);
    }
    catch (e) {
        io.stderr(`${e instanceof ConfigError ? e.message : String(e)}\n`);
        return 78;
    }
    const log = pino(loggerOptions(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL), pino.destination(2));
    let db;
    try {
        if (positionals.length > 2)
            throw new UsageError(`unexpected argument "${positionals[2]}"`);
        if (command === 'db prune') {
            // Needs no database: it looks at the embedded clusters, not into one.
            const out = await pruneClusters(flags);
            io.stdout(flags.json ? `${JSON.stringify(out.json)}\n` : `${out.human}\n`);
            return 0;
        }
        db = await openDatabase(config, { poolMax: 2 });
        const ctx = {
            config,
            db,
            clock: () => new Date(),
            log,
            caches: createKeyCaches(),
            sii: createSiiClient({ config, log }),
            jobs: null,
            pdf: createPdfRenderer({ concurrency: 1 }),
            // The CLI signs a few documents at most: on its own thread.
            signer: createSigner({ workers: 0 }),
        };
        const out = await run(ctx, command, flags, io);
        io.stdout(flags.json ? `${JSON.stringify(out.json)}\n` : `${out.human}\n`);
        return 0;
    }
    catch (e) {
        if (e instanceof UsageError) {
            io.stderr(`error: ${e.message}\n\n${USAGE}\n`);
            return 2;
        }
        if (e instanceof AppError) {
            const detail = e.details && e.details.length > 1 ? `\n${e.details.map((d) => `  ${d.path}: ${d.message}`).join('\n')}` : '';
            io.stderr(`error: ${e.message}${detail}\n`);
            if (flags.json)
                io.stdout(`${JSON.stringify({ ok: false, error: e.message, code: e.code })}\n`);
            return 1;
        }
        log.error({ err: e }, 'cli failure');
        io.stderr(`error: ${e.message}\n`);
        return 1;
    }
    finally {
        await db?.close();
    }
}
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
    runCli(process.argv.slice(2)).then((code) => process.exit(code), (err) => {
        process.stderr.write(`error: ${String(err)}\n`);
        process.exit(1);
    });
}

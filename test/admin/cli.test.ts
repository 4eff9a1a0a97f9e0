/**
 * The operator CLI, command by command, including its refusals (docs/design.md §5 "Admin"). Runs
 * in-process through `runCli` against a fresh database; one test at the end runs the real
 * `npm run cli` entry point as a subprocess.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.ts';
import { generateCaf } from '../../src/dte/caf.ts';
import { generateTestCertificate } from '../../src/dte/certificate.ts';
import { nextRut, TEST_MASTER_KEY } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { fixturePath } from '../helpers/fixtures.ts';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let env: Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), 'timbre-cli-'));

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    env,
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
  });
  return { code, stdout, stderr, json: () => JSON.parse(stdout) };
}

async function createIssuer(rut = nextRut(), extra: string[] = []) {
  const r = await cli(
    'issuer',
    'create',
    '--rut',
    rut,
    '--name',
    'Panadería Ñuñoa Ltda.',
    '--giro',
    'Panadería',
    '--acteco',
    '107100',
    '--address',
    'Irarrázaval 100',
    '--comuna',
    'Ñuñoa',
    '--json',
    ...extra,
  );
  expect(r.code, r.stderr).toBe(0);
  return r.json();
}

beforeAll(async () => {
  database = await createTestDatabase();
  env = {
    DATABASE_URL: database.url,
    TIMBRE_DATA_DIR: dir,
    TIMBRE_MASTER_KEY: TEST_MASTER_KEY,
    LOG_LEVEL: 'silent',
  };
});

afterAll(async () => {
  await database.drop();
});

describe('issuer', () => {
  it('create prints the issuer as JSON with a new account', async () => {
    const rut = nextRut();
    const v = await createIssuer(rut, [
      '--city',
      'Santiago',
      '--resolution-date',
      '2014-08-22',
      '--resolution-number',
      '80',
    ]);
    expect(v).toMatchObject({
      rut,
      name: 'Panadería Ñuñoa Ltda.',
      ambiente: 0,
      env: 'sandbox',
      vat_rate: 19,
      active: true,
    });
    expect(v.account_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(v.resolution_date).toBe('2014-08-22');
  });

  it('create with --account puts a second issuer in the same account', async () => {
    const first = await createIssuer();
    const second = await createIssuer(nextRut(), ['--account', first.account_id]);
    expect(second.account_id).toBe(first.account_id);
  });

  it('refuses a duplicate RUT, a bad RUT, bad fields and an unknown account', async () => {
    const v = await createIssuer();
    const dup = await cli(
      'issuer',
      'create',
      '--rut',
      v.rut,
      '--name',
      'X',
      '--giro',
      'Y',
      '--acteco',
      '107100',
      '--address',
      'A',
      '--comuna',
      'C',
    );
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/already exists/);
    const bad = await cli(
      'issuer',
      'create',
      '--rut',
      '76369187-0',
      '--name',
      'X',
      '--giro',
      'Y',
      '--acteco',
      '107100',
      '--address',
      'A',
      '--comuna',
      'C',
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/rut/i);
    const acteco = await cli(
      'issuer',
      'create',
      '--rut',
      nextRut(),
      '--name',
      'X',
      '--giro',
      'Y',
      '--acteco',
      '12',
      '--address',
      'A',
      '--comuna',
      'C',
    );
    expect(acteco.code).toBe(1);
    expect(acteco.stderr).toMatch(/acteco/);
    const account = await cli(
      'issuer',
      'create',
      '--rut',
      nextRut(),
      '--name',
      'X',
      '--giro',
      'Y',
      '--acteco',
      '107100',
      '--address',
      'A',
      '--comuna',
      'C',
      '--account',
      '00000000-0000-0000-0000-000000000000',
    );
    expect(account.code).toBe(1);
    expect(account.stderr).toMatch(/account/i);
  });

  it('missing required flags and unknown commands are usage errors (exit 2)', async () => {
    expect((await cli('issuer', 'create', '--rut', nextRut())).code).toBe(2);
    expect((await cli('issuer', 'explode')).code).toBe(2);
    expect((await cli('issuer', 'list', '--bogus')).code).toBe(2);
  });

  it('rule 12: --sii-office sets the SII unit printed "S.I.I. - <unit>" on create and update', async () => {
    const v = await createIssuer(nextRut(), ['--sii-office', 'Santiago Oriente']);
    expect(v.sii_office).toBe('Santiago Oriente');
    const up = await cli('issuer', 'update', '--rut', v.rut, '--sii-office', 'Ñuñoa', '--json');
    expect(up.code, up.stderr).toBe(0);
    expect(up.json().sii_office).toBe('Ñuñoa');
    const cleared = await cli('issuer', 'update', '--rut', v.rut, '--sii-office', '', '--json');
    expect(cleared.json().sii_office).toBeNull();
  });

  it('update, deactivate and list', async () => {
    const v = await createIssuer();
    const up = await cli('issuer', 'update', '--rut', v.rut, '--ambiente', '1', '--vat-rate', '10', '--json');
    expect(up.code, up.stderr).toBe(0);
    expect(up.json()).toMatchObject({ ambiente: 1, env: 'live', vat_rate: 10 });
    const off = await cli('issuer', 'deactivate', '--rut', v.rut, '--json');
    expect(off.json().active).toBe(false);
    const list = await cli('issuer', 'list', '--json');
    const row = list.json().issuers.find((i: { rut: string }) => i.rut === v.rut);
    expect(row).toMatchObject({ active: false, env: 'live' });
    const human = await cli('issuer', 'list');
    expect(human.stdout).toContain(v.rut);
    const missing = await cli('issuer', 'update', '--rut', nextRut(), '--name', 'Z');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No .*issuer/);
  });
});

describe('key', () => {
  it('create shows the key once; list never shows it; the sixth active key is refused; revoke frees a slot', async () => {
    const v = await createIssuer();
    const created = [];
    for (const role of ['owner', 'editor', 'viewer', 'viewer', 'editor']) {
      const r = await cli('key', 'create', '--rut', v.rut, '--role', role, '--json');
      expect(r.code, r.stderr).toBe(0);
      const j = r.json();
      expect(j.key).toMatch(/^timbre_[0-9A-Za-z]{40}$/);
      expect(j.role).toBe(role);
      created.push(j);
    }
    const sixth = await cli('key', 'create', '--rut', v.rut, '--role', 'viewer');
    expect(sixth.code).toBe(1);
    expect(sixth.stderr).toMatch(/5/);

    const list = await cli('key', 'list', '--rut', v.rut, '--json');
    expect(list.json().keys).toHaveLength(5);
    for (const c of created) expect(list.stdout).not.toContain(c.key);
    expect(list.stdout).not.toMatch(/timbre_[0-9A-Za-z]{40}/);
    const humanList = await cli('key', 'list', '--rut', v.rut);
    expect(humanList.stdout).not.toMatch(/timbre_[0-9A-Za-z]{40}/);

    const revoked = await cli('key', 'revoke', '--id', created[0].id, '--json');
    expect(revoked.json()).toMatchObject({ id: created[0].id, status: 'revoked' });
    const again = await cli('key', 'create', '--rut', v.rut, '--role', 'viewer', '--json');
    expect(again.code).toBe(0);
  });

  it('the limit is per account, across its issuers', async () => {
    const a = await createIssuer();
    const b = await createIssuer(nextRut(), ['--account', a.account_id]);
    for (let i = 0; i < 3; i++) expect((await cli('key', 'create', '--rut', a.rut, '--role', 'viewer')).code).toBe(0);
    for (let i = 0; i < 2; i++) expect((await cli('key', 'create', '--rut', b.rut, '--role', 'viewer')).code).toBe(0);
    expect((await cli('key', 'create', '--rut', b.rut, '--role', 'owner')).code).toBe(1);
  });

  it('refuses an unknown role, an unknown id, an unknown issuer', async () => {
    const v = await createIssuer();
    expect((await cli('key', 'create', '--rut', v.rut, '--role', 'admin')).code).toBe(1);
    const r = await cli('key', 'revoke', '--id', '00000000-0000-0000-0000-000000000000');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/No API key/);
    expect((await cli('key', 'list', '--rut', nextRut())).code).toBe(1);
  });
});

describe('cert import', () => {
  function writeP12(name: string, p12: Buffer) {
    const path = join(dir, name);
    writeFileSync(path, p12);
    return path;
  }

  // Fixed passwords: a random one begins with "-" now and then, which must work but should be
  // tested on purpose (below), not by chance.
  async function cliWithStdin(stdin: string, ...argv: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      env,
      stdout: (t) => {
        stdout += t;
      },
      stderr: (t) => {
        stderr += t;
      },
      readStdin: async () => stdin,
    });
    return { code, stdout, stderr, json: () => JSON.parse(stdout) };
  }

  it('imports a valid certificate and reports its holder and validity', async () => {
    const v = await createIssuer();
    const { p12, password } = generateTestCertificate({
      holderRut: '13185095-6',
      name: 'JOSÉ PÉREZ NÚÑEZ',
      password: 'correct horse battery',
    });
    const r = await cli(
      'cert',
      'import',
      '--rut',
      v.rut,
      '--file',
      writeP12('ok.p12', p12),
      '--password',
      password,
      '--json',
    );
    expect(r.code, r.stderr).toBe(0);
    const j = r.json();
    expect(j.holder_rut).toBe('13185095-6');
    expect(new Date(j.not_after).getTime()).toBeGreaterThan(Date.now());
    expect(r.stdout).not.toContain(password);
  });

  it('refuses a wrong password', async () => {
    const v = await createIssuer();
    const { p12 } = generateTestCertificate({ holderRut: '13185095-6', name: 'A' });
    const r = await cli('cert', 'import', '--rut', v.rut, '--file', writeP12('pw.p12', p12), '--password', 'wrong');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/password/i);
  });

  it('refuses an expired certificate', async () => {
    const v = await createIssuer();
    const { p12, password } = generateTestCertificate({
      holderRut: '13185095-6',
      name: 'A',
      notBefore: new Date(Date.now() - 400 * 86400_000),
      validDays: 30,
      password: 'expired-but-right',
    });
    const r = await cli('cert', 'import', '--rut', v.rut, '--file', writeP12('old.p12', p12), '--password', password);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/expired/i);
  });

  it('accepts a password that begins with "-", as --password=-x and as --password -x', async () => {
    const password = '-x9_dash-first';
    const { p12 } = generateTestCertificate({ holderRut: '13185095-6', name: 'DASH', password });
    const file = writeP12('dash.p12', p12);
    for (const form of [[`--password=${password}`], ['--password', password]]) {
      const v = await createIssuer();
      const r = await cli('cert', 'import', '--rut', v.rut, '--file', file, ...form, '--json');
      expect(r.code, `${form.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.json().subject).toContain('DASH');
    }
  });

  it('reads the password from stdin with --password-stdin (one final newline dropped)', async () => {
    const password = '-from stdin ñ';
    const { p12 } = generateTestCertificate({ holderRut: '13185095-6', name: 'STDIN', password });
    const file = writeP12('stdin.p12', p12);
    const v = await createIssuer();
    const r = await cliWithStdin(`${password}\n`, 'cert', 'import', '--rut', v.rut, '--file', file, '--password-stdin');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('STDIN');
    expect(r.stdout).not.toContain(password);
    const wrong = await cliWithStdin('nope\n', 'cert', 'import', '--rut', v.rut, '--file', file, '--password-stdin');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/password/i);
  });

  it('without a password and without a terminal, or with both forms, is a usage error (exit 2)', async () => {
    const v = await createIssuer();
    const { p12 } = generateTestCertificate({ holderRut: '13185095-6', name: 'A', password: 'pw' });
    const file = writeP12('none.p12', p12);
    const none = await cli('cert', 'import', '--rut', v.rut, '--file', file);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--password-stdin/);
    const both = await cliWithStdin(
      'pw',
      'cert',
      'import',
      '--rut',
      v.rut,
      '--file',
      file,
      '--password',
      'pw',
      '--password-stdin',
    );
    expect(both.code).toBe(2);
  });

  it('refuses a .p12 without a private key and one without the holder RUT', async () => {
    const v = await createIssuer();
    const key = join(dir, 'k.pem');
    const crt = join(dir, 'c.pem');
    execFileSync('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      crt,
      '-days',
      '30',
      '-subj',
      '/CN=Sin RUT',
    ]);
    const noKey = join(dir, 'nokey.p12');
    execFileSync('openssl', ['pkcs12', '-export', '-nokeys', '-in', crt, '-out', noKey, '-passout', 'pass:pw']);
    const noRut = join(dir, 'norut.p12');
    execFileSync('openssl', ['pkcs12', '-export', '-inkey', key, '-in', crt, '-out', noRut, '-passout', 'pass:pw']);
    const r1 = await cli('cert', 'import', '--rut', v.rut, '--file', noKey, '--password', 'pw');
    expect(r1.code).toBe(1);
    expect(r1.stderr).toMatch(/private key/i);
    const r2 = await cli('cert', 'import', '--rut', v.rut, '--file', noRut, '--password', 'pw');
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(/RUT/);
  });

  it('refuses a missing file', async () => {
    const v = await createIssuer();
    const r = await cli('cert', 'import', '--rut', v.rut, '--file', join(dir, 'nope.p12'), '--password', 'x');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Cannot read/);
  });
});

describe('caf import', () => {
  const sample = () => readFileSync(fixturePath('sii', 'caf', 'CAF_T33_97975000-5_F1-200_ejemplo_SII.xml'));
  /** The SII sample CAF is issued to 97975000-5: each test that needs that issuer makes sure it exists. */
  const SAMPLE_RUT = '97975000-5';
  async function sampleIssuer() {
    const list = await cli('issuer', 'list', '--json');
    if (!list.json().issuers.some((i: { rut: string }) => i.rut === SAMPLE_RUT)) await createIssuer(SAMPLE_RUT);
  }

  it("imports the SII's certification CAF (FRMA verified with the IDK 100 key) and refuses it twice", async () => {
    await sampleIssuer();
    const path = join(dir, 'caf.xml');
    writeFileSync(path, sample());
    const r = await cli('caf', 'import', '--rut', '97975000-5', '--file', path, '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ type: 33, from: 1, to: 200 });
    const again = await cli('caf', 'import', '--rut', '97975000-5', '--file', path);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/overlap/);
  });

  it('refuses a CAF issued to another RUT', async () => {
    const v = await createIssuer();
    const path = join(dir, 'caf-other.xml');
    writeFileSync(path, sample());
    const r = await cli('caf', 'import', '--rut', v.rut, '--file', path);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/97975000-5/);
  });

  it('refuses a CAF whose RSASK does not match RSAPK', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 512, publicExponent: 3 });
    const pem = other.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;
    const text = sample()
      .toString('latin1')
      .replace(/<RSASK>[\s\S]*?<\/RSASK>/, `<RSASK>${pem}</RSASK>`);
    const path = join(dir, 'caf-key.xml');
    writeFileSync(path, Buffer.from(text, 'latin1'));
    await sampleIssuer();
    const r = await cli('caf', 'import', '--rut', SAMPLE_RUT, '--file', path);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/RSASK|private key/);
  });

  it('refuses a CAF whose FRMA does not verify (range tampered)', async () => {
    const text = sample().toString('latin1').replace('<H>200</H>', '<H>900</H>');
    const path = join(dir, 'caf-tampered.xml');
    writeFileSync(path, Buffer.from(text, 'latin1'));
    await sampleIssuer();
    const r = await cli('caf', 'import', '--rut', SAMPLE_RUT, '--file', path);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/FRMA/);
  });

  it('accepts a CAF signed by an extra key only when TIMBRE_EXTRA_CAF_KEYS trusts it', async () => {
    const v = await createIssuer();
    const signer = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const xml = generateCaf({
      rut: v.rut,
      name: 'PANADERIA',
      type: 39,
      from: 1,
      to: 50,
      authorisedAt: '2026-01-02',
      signerKey: signer.privateKey,
      idk: 100,
    });
    const path = join(dir, 'caf-extra.xml');
    writeFileSync(path, Buffer.from(xml, 'latin1'));
    const refused = await cli('caf', 'import', '--rut', v.rut, '--file', path);
    expect(refused.code).toBe(1);
    const pem = signer.publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const saved = env;
    env = { ...env, TIMBRE_EXTRA_CAF_KEYS: pem };
    try {
      const ok = await cli('caf', 'import', '--rut', v.rut, '--file', path, '--json');
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.json()).toMatchObject({ type: 39, from: 1, to: 50 });
    } finally {
      env = saved;
    }
  });
});

describe('--json errors', () => {
  it('a refused command with --json prints one JSON error object on stdout, the message on stderr, exit 1', async () => {
    const r = await cli('key', 'revoke', '--id', '00000000-0000-0000-0000-000000000000', '--json');
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.json()).toEqual({ ok: false, error: expect.stringMatching(/No API key/), code: 'KEY_NOT_FOUND' });
    expect(r.stderr).toMatch(/No API key/);
  });
});

describe('entry point', () => {
  it('`npm run cli` works as a real process and exits 1 with a message on errors', async () => {
    const v = await createIssuer();
    const ok = spawnSync('npm', ['run', '--silent', 'cli', '--', 'issuer', 'list', '--json'], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    expect(ok.status, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).issuers.map((i: { rut: string }) => i.rut)).toContain(v.rut);
    const bad = spawnSync('npm', ['run', '--silent', 'cli', '--', 'key', 'revoke', '--id', 'nope'], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/No API key/);
  });
});

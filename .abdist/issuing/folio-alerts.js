import { recordEvent } from '../events/record.js';
/** The issuer's threshold for a type: configured (CLI `issuer update --folio-alert TYPE=N`) or the default. */
export function folioThreshold(issuer, type, lastRangeSize) {
    const configured = issuer.folioAlerts?.[String(type)];
    if (typeof configured === 'number' && Number.isInteger(configured) && configured >= 0)
        return configured;
    // Default: 10 % of the last range or 20, whichever is larger.
    return Math.max(Math.ceil(lastRangeSize * 0.1), 20);
}
/**
 * Per database handle, per issuer, environment and type: the stock (folios left) at which this
 * process last ran the check below in a committed transaction (0: `folios.exhausted` was due
 * then). While the stock stays under the threshold, every issue would otherwise repeat
 * the check in a transaction of its own (no shared commit, more round trips) to find events
 * already recorded: on a bench that ran its stock down, the last 10 % of the documents issued
 * about a third slower. The stock only falls as folios are used, so a stock at or below the
 * one already checked has nothing new to announce, until it reaches 0 (`folios.exhausted`). A
 * stock above it means a range was added: check again (a new range is a new crossing).
 */
const checkedStock = new WeakMap();
const stockKey = (issuerId, env, type) => `${issuerId}:${env}:${type}`;
/**
 * Whether an issue that leaves `available` folios (after its own, as the reservation read them)
 * must run `checkFolioStock` in its transaction.
 */
export function stockCheckDue(db, at, available, threshold) {
    const checked = checkedStock.get(db);
    const key = stockKey(at.issuerId, at.env, at.type);
    if (available >= threshold) {
        checked?.delete(key);
        return false;
    }
    const last = checked?.get(key);
    if (last === undefined || available > last)
        return true;
    return available === 0 && last > 0;
}
/** After the transaction that ran `checkFolioStock` committed: what it checked. */
export function stockChecked(db, at, available) {
    const checked = checkedStock.get(db) ?? new Map();
    checkedStock.set(db, checked);
    checked.set(stockKey(at.issuerId, at.env, at.type), available);
}
/** Records `folios.low` / `folios.exhausted` when due; the stock it read (folios left). */
export async function checkFolioStock(tx, input) {
    const { issuer, env, type, today, now } = input;
    const [stock] = await tx.$queryRaw `
    SELECT coalesce(sum(CASE WHEN expires_at IS NULL OR expires_at >= ${today}::date
                             THEN greatest(range_to - next_folio + 1, 0) ELSE 0 END), 0)::int AS available,
           (array_agg(id::text ORDER BY authorised_at DESC, range_from DESC))[1] AS last_id,
           (array_agg(range_to - range_from + 1 ORDER BY authorised_at DESC, range_from DESC))[1]::int AS last_size
      FROM cafs WHERE issuer_id = ${issuer.id}::uuid AND environment = ${env}::"Environment" AND type = ${type}::int`;
    if (!stock?.last_id)
        return null;
    const threshold = folioThreshold(issuer, type, stock.last_size ?? 0);
    const data = { type, env, available: stock.available, threshold };
    if (stock.available < threshold) {
        await recordEvent(tx, { issuerId: issuer.id, type: 'folios.low', data, dedupeKey: `folios.low:${env}:${type}:${stock.last_id}` }, now);
    }
    if (stock.available === 0) {
        await recordEvent(tx, {
            issuerId: issuer.id,
            type: 'folios.exhausted',
            data,
            dedupeKey: `folios.exhausted:${env}:${type}:${stock.last_id}`,
        }, now);
    }
    return stock.available;
}

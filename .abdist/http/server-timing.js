/** The header's value: each stage's milliseconds with one decimal, in the order they ran. */
export function serverTiming(t) {
    const stages = [
        ['folio', t.folio],
        ['sign', t.sign],
        ['store', t.store],
        ['sii', t.sii],
    ];
    return stages
        .filter((s) => s[1] !== undefined)
        .map(([name, ms]) => `${name};dur=${ms.toFixed(1)}`)
        .join(', ');
}

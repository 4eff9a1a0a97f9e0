export function environmentOf(issuer) {
    return issuer.siiAmbiente === 0 ? 'sandbox' : 'live';
}

function emailStatusOf(state) {
    switch (state) {
        case 'waiting':
        case 'pending':
        case 'sending':
            return 'pending';
        case 'sent':
            return 'sent';
        case 'failed':
            return 'failed';
        case 'disabled':
            return 'disabled';
        default:
            return 'none';
    }
}
export function emailViewOf(e) {
    const status = emailStatusOf(e?.state);
    if (!e || status === 'none')
        return { status, to: e?.to ?? [], at: null };
    const at = status === 'sent' ? e.sentAt : status === 'failed' ? e.updatedAt : null;
    return { status, to: e.to, at: at ? at.toISOString() : null };
}

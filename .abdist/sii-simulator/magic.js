const MAGIC_RECEIVERS = {
    '11111111-1': {
        section: 'HED',
        level: 3,
        code: 901,
        description: 'Rechazo forzado por el simulador (RUTRecep 11111111-1)',
    },
    '22222222-2': {
        section: 'HED',
        level: 1,
        code: 902,
        description: 'Reparo leve forzado por el simulador (RUTRecep 22222222-2)',
    },
    '33333333-3': {
        section: 'HED',
        level: 2,
        code: 903,
        description: 'Reparo forzado por el simulador (RUTRecep 33333333-3)',
    },
};
export function magicReceiverError(receiverRut) {
    return MAGIC_RECEIVERS[receiverRut.toUpperCase()] ?? null;
}

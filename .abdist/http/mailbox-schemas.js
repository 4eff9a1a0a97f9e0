/** The schemas of `/api/{rut}/buzon` (the intercambio mailbox settings; README "Received documents"). */
import { z } from 'zod';
import { MAILBOX_TLS } from '../receiving/mailbox-settings.js';
export const mailboxSchema = z
    .object({
    host: z.string(),
    port: z.number().int(),
    tls: z.enum(MAILBOX_TLS),
    user: z.string(),
    folder: z.string(),
    answer_by_email: z.boolean(),
    last_ok_at: z.string().nullable(),
    last_error: z.string().nullable(),
    last_error_at: z.string().nullable(),
    last_uid: z.number().int(),
    messages_read: z.number().int(),
    updated_at: z.string(),
})
    .meta({
    description: 'The mailbox settings (never the password) and how reading it goes: the last good read, the last error, the highest UID dealt with and how many messages were read.',
});
export const mailboxExample = {
    host: 'imap.losandes.cl',
    port: 993,
    tls: 'implicit',
    user: 'dte@losandes.cl',
    folder: 'INBOX',
    answer_by_email: true,
    last_ok_at: '2026-11-25T13:00:05.731Z',
    last_error: null,
    last_error_at: null,
    last_uid: 118,
    messages_read: 97,
    updated_at: '2026-11-20T09:12:44.120Z',
};

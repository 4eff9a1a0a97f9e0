/**
 * The one rule for an e-mail address, wherever one is accepted: the receiver e-mail of an issue
 * request, the recipients of `emision_email` and of the dashboard's "Reenviar por correo", the
 * dashboard's users. A pragmatic shape, not RFC 5322: something@domain.tld, at most 254
 * characters (RFC 5321 path limit), with no white space and none of the characters that separate
 * or quote addresses in a header (`< > , ; " ( ) [ ] \`), so an accepted address is always one
 * address that nodemailer sends as written.
 */
const EMAIL_MAX_LENGTH = 254;
const ADDRESS = /^[^\s@<>,;"()[\]\\]+@[^\s@<>,;"()[\]\\]+\.[^\s@<>,;"()[\]\\]+$/;
export function isEmailAddress(s) {
    return s.length <= EMAIL_MAX_LENGTH && ADDRESS.test(s);
}

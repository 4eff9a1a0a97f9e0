import { AppError } from '../errors.js';
export function registerJsonBody(app) {
    const parse = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
        let text;
        try {
            text = new TextDecoder('utf-8', { fatal: true }).decode(body);
        }
        catch {
            done(new AppError('INVALID_JSON', 'The request body is not valid UTF-8.'), undefined);
            return;
        }
        parse(request, text, done);
    });
}

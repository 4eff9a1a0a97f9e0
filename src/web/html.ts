/**
 * Typed HTML templates: `html\`…\`` escapes everything interpolated unless it is already
 * `Html` (another template's output). Arrays are joined; null, undefined and false render as
 * nothing. There is no other way to put text into a page, so escaping cannot be forgotten.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type Renderable = Html | string | number | bigint | boolean | null | undefined | Renderable[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

function render(v: Renderable): string {
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === null || v === undefined || v === false || v === true) return '';
  return escapeHtml(String(v));
}

export function html(strings: TemplateStringsArray, ...values: Renderable[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new Html(out);
}

/** An attribute that is present or absent (`checked`, `selected`, `disabled`). */
export function attr(name: string, on: boolean): Html {
  return new Html(on ? ` ${name}` : '');
}

// Placeholder: replaced by the embedded-Postgres setup.
export default function setup(): void {}

/** The issuer every bench part builds its documents for (the demo issuer's data). */
export const BENCH_ISSUER = {
  rut: '76086428-5',
  name: 'Comercial Demo Ñuñoa SpA',
  giro: 'Venta al por menor',
  acteco: ['475201'],
  address: 'Av. Irarrázaval 1234',
  comuna: 'Ñuñoa',
  city: 'Santiago',
  vatRate: 19,
  resolutionDate: '2014-08-22',
  resolutionNumber: 80,
};

/** The receiver of the bench's facturas. */
export const BENCH_RECEIVER = {
  rut: '76354771-K',
  name: 'Distribuidora Ñandú Ltda.',
  activity: 'Comercio',
  address: 'Av. Italia 123',
  comuna: 'Providencia',
  city: 'Santiago',
};

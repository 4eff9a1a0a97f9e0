/** Realistic issue requests for each document type (Spanish text, `&`, `<` on purpose). */
export const RECEIVER = {
  rut: '76354771-K',
  name: 'Distribuidora Ñandú & Hijos <Sur> Ltda.',
  activity: 'Venta mayorista de artículos ferretería', // GiroRecep: ≤ 40 characters
  address: 'Av. Libertador B. O’Higgins 1449, of. 2°',
  comuna: 'Santiago',
  city: 'Santiago',
  email: 'facturas@nandu.cl',
};

export function factura(over: Record<string, unknown> = {}) {
  return {
    type: 33,
    receiver: RECEIVER,
    items: [
      { name: 'Clavos de acero 2" (caja)', qty: 10, price: 1350, unit: 'CJ', code: 'CLV-2' },
      { name: 'Martillo carpintero', qty: 2, price: 8990, description: 'Mango de fibra, 16 oz' },
      { name: 'Flete a Ñuñoa', qty: 1, price: 5000, exempt: true },
    ],
    ...over,
  };
}

export function requestFor(type: number): Record<string, unknown> {
  switch (type) {
    case 33:
      return factura();
    case 34:
      return {
        type: 34,
        receiver: RECEIVER,
        items: [
          { name: 'Asesoría contable exenta', qty: 1, price: 150000 },
          { name: 'Curso de capacitación', qty: 3, price: 45000 },
        ],
      };
    case 39:
      return {
        type: 39,
        items: [
          { name: 'Café orgánico ½ kg', qty: 2, price: 6990 },
          { name: 'Pan amasado', qty: 1.5, price: 2400 },
        ],
      };
    case 41:
      return { type: 41, items: [{ name: 'Entrada museo (exenta)', qty: 2, price: 3000 }] };
    case 46:
      return {
        type: 46,
        receiver: { ...RECEIVER, rut: '13185095-6', name: 'José Muñoz Peña' },
        items: [{ name: 'Compra de chatarra de cobre', qty: 120, price: 3500, unit: 'KG' }],
      };
    case 52:
      return {
        type: 52,
        receiver: RECEIVER,
        // IndTraslado 6 (otros traslados no venta): a guía without prices to a customer.
        dispatch: { transfer_type: 6 },
        items: [{ name: 'Estanterías en préstamo para exhibición', qty: 4 }],
      };
    default:
      throw new Error(`no fixture for ${type}`);
  }
}

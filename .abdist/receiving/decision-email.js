export const decisionEmail = async (ctx, m) => {
    if (!m.decisionId)
        return null;
    const d = await ctx.db.prisma.receivedDecision.findUniqueOrThrow({
        where: { id: m.decisionId },
        include: { receivedDocument: true, issuer: true },
    });
    const doc = d.receivedDocument;
    const folio = Number(doc.folio);
    return {
        about: { type: doc.type, folio, to: m.to, issuer: d.issuer.rut, decision: Number(d.number) },
        compose: async () => {
            const what = d.kind === 'accept'
                ? d.recibosXml
                    ? 'acepta el documento y otorga el recibo de las mercaderías o servicios (Ley 19.983)'
                    : 'acepta el contenido del documento'
                : `reclama el documento${d.glosa ? `: ${d.glosa}` : ''}`;
            const base = `${d.issuer.rut}_T${doc.type}_F${folio}`;
            return {
                from: ctx.config.MAIL_FROM,
                to: m.to,
                subject: `Respuesta de ${d.issuer.name} a su documento tipo ${doc.type} N° ${folio}`,
                text: `${d.issuer.name} (RUT ${d.issuer.rut}) ${what}: tipo ${doc.type} N° ${folio}, emitido por RUT ${doc.emisorRut}.\n\n` +
                    `Se adjunta la respuesta firmada (RespuestaDTE con ResultadoDTE)${d.recibosXml ? ' y el recibo (EnvioRecibos)' : ''}.\n` +
                    (d.state === 'local' ? '\nRespuesta de prueba (SANDBOX): sin validez tributaria.\n' : ''),
                attachments: [
                    ...(d.resultadoXml
                        ? [
                            {
                                filename: `ResultadoDTE_${base}.xml`,
                                content: Buffer.from(d.resultadoXml),
                                contentType: 'application/xml; charset=ISO-8859-1',
                            },
                        ]
                        : []),
                    ...(d.recibosXml
                        ? [
                            {
                                filename: `EnvioRecibos_${base}.xml`,
                                content: Buffer.from(d.recibosXml),
                                contentType: 'application/xml; charset=ISO-8859-1',
                            },
                        ]
                        : []),
                ],
            };
        },
    };
};

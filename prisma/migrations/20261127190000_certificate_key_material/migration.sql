-- The signing certificate's private key (PKCS#8 DER) and certificate (DER), sealed with the
-- master key like the .p12 beside it (AES-256-GCM, src/db/secrets.ts). Issuing loads this form:
-- reading the .p12 means PKCS#12's key derivation in JavaScript (node-forge; node:crypto has no
-- PKCS#12 reader), about 110 ms on the event loop per certificate and process start, during
-- which every other request of the instance waited. Written at import and generation; rows
-- written before it get it the first time a process loads their .p12 (src/issuing/key-material.ts).
ALTER TABLE "certificates" ADD COLUMN "key_material_encrypted" BYTEA;

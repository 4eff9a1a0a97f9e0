export { createKeyCaches } from './caches.js';

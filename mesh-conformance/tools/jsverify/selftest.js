'use strict';
// Checks the verifier's primitives against data nobody here wrote: the BLAKE3 team's vectors and
// the IETF COSE working group's Sign1 examples, as this repository carries them for its own tests
// (mesh-core's and mesh-receipt's src/test/resources/vectors, each with its licence).
// Usage: node selftest.js [vectors-dir]   (a folder holding blake3/ and cose-wg/; by default the
// repository's own copies)
const fs = require('fs');
const path = require('path');
const blake3 = require('./blake3');

const root = path.resolve(__dirname, '../../..');
const blake3Dir = process.argv[2] || path.join(root, 'mesh-core/src/test/resources/vectors');
const coseDir = process.argv[2] || path.join(root, 'mesh-receipt/src/test/resources/vectors');
let failures = 0;
function check(ok, what) {
  if (!ok) {
    failures++;
    console.log('FAIL ' + what);
  }
}

const bv = JSON.parse(fs.readFileSync(path.join(blake3Dir, 'blake3/test_vectors.json'), 'utf8'));
const key = Buffer.from(bv.key, 'utf8');
for (const c of bv.cases) {
  const input = Uint8Array.from({ length: c.input_len }, (_, i) => i % 251);
  const n = c.hash.length / 2;
  check(Buffer.from(blake3.hash(input, n)).toString('hex') === c.hash, 'blake3 hash len ' + c.input_len);
  check(Buffer.from(blake3.keyedHash(key, input, n)).toString('hex') === c.keyed_hash, 'blake3 keyed len ' + c.input_len);
  check(
    Buffer.from(blake3.deriveKey(bv.context_string, input, n)).toString('hex') === c.derive_key,
    'blake3 derive_key len ' + c.input_len,
  );
}
console.log('blake3: ' + bv.cases.length + ' cases x 3 modes checked');

module.exports = { check };
if (require.main === module) {
  require('./selftest-cose').run(coseDir, check);
  console.log(failures === 0 ? 'selftest: all passed' : 'selftest: ' + failures + ' failed');
  process.exit(failures === 0 ? 0 : 1);
}

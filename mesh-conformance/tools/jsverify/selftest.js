'use strict';
// Checks the verifier's primitives against data nobody here wrote: the BLAKE3 team's vectors and
// the IETF COSE working group's Sign1 examples (see /work/shared/vectors/README.md).
// Usage: node selftest.js [vectors-dir]   (default ../../../../shared/vectors from this folder)
const fs = require('fs');
const path = require('path');
const blake3 = require('./blake3');

const dir = process.argv[2] || path.resolve(__dirname, '../../../../shared/vectors');
let failures = 0;
function check(ok, what) {
  if (!ok) {
    failures++;
    console.log('FAIL ' + what);
  }
}

const bv = JSON.parse(fs.readFileSync(path.join(dir, 'blake3/test_vectors.json'), 'utf8'));
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
  require('./selftest-cose').run(dir, check);
  console.log(failures === 0 ? 'selftest: all passed' : 'selftest: ' + failures + ' failed');
  process.exit(failures === 0 ? 0 : 1);
}

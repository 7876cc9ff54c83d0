'use strict';
// The IETF COSE working group's Sign1 examples: the Ed25519 one verifies and reproduces byte for
// byte; everything else (Ed448, ECDSA, tampered) is refused by the JCR-1 rules.
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const cose = require('./cose');

function run(dir, check) {
  const d = path.join(dir, 'cose-wg');
  let n = 0;
  for (const f of fs.readdirSync(d).filter((x) => x.endsWith('.json')).sort()) {
    const v = JSON.parse(fs.readFileSync(path.join(d, f), 'utf8'));
    const bytes = Buffer.from(v.output.cbor, 'hex');
    const key = v.input.sign0.key;
    const problems = [];
    const env = cose.parseSign1(bytes, problems);
    n++;
    if (f === 'eddsa-examples_eddsa-sig-01.json') {
      const pub = Buffer.from(key.x_hex, 'hex');
      check(env !== null && cose.checkJcr1(env, pub, problems), f + ' should verify: ' + problems.join('; '));
      check(
        Buffer.from(cose.toBeSigned(env)).toString('hex').toUpperCase() === v.intermediates.ToBeSign_hex,
        f + ' ToBeSign bytes',
      );
      const priv = crypto.createPrivateKey({
        key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(key.d_hex, 'hex')]),
        format: 'der',
        type: 'pkcs8',
      });
      const sig = crypto.sign(null, cose.toBeSigned(env), priv);
      check(Buffer.from(sig).equals(Buffer.from(env.signature)), f + ' signature reproduces');
    } else {
      const pub = key.x_hex ? Buffer.from(key.x_hex, 'hex') : Buffer.alloc(32);
      const ok = env !== null && cose.checkJcr1(env, pub, problems);
      check(!ok && problems.length > 0, f + ' must be refused');
      console.log('  ' + f + ' refused: ' + problems[0]);
    }
  }
  console.log('cose-wg: ' + n + ' examples checked');
}
module.exports = { run };

package org.meshjava.receipt.tlog.internal;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Random;
import org.meshjava.core.crypto.SignatureException;
import org.meshjava.core.crypto.VerificationKey;
import org.meshjava.receipt.tlog.NoteSignature;
import org.meshjava.receipt.tlog.NoteVerifierKey;

/**
 * An Ed25519 signer that picks its nonce at random (RFC 8032 §5.1.6 derives it from the key and the
 * message, but verification accepts any nonce): a witness signing this way gives a different, valid
 * cosignature each time it signs one checkpoint. Plain affine arithmetic on the curve, slow and not
 * constant-time: for tests only.
 */
final class HedgedEd25519 {
  private static final BigInteger P = BigInteger.TWO.pow(255).subtract(BigInteger.valueOf(19));
  private static final BigInteger L =
      BigInteger.TWO.pow(252).add(new BigInteger("27742317777372353535851937790883648493"));
  private static final BigInteger D =
      BigInteger.valueOf(-121665).multiply(BigInteger.valueOf(121666).modInverse(P)).mod(P);
  private static final BigInteger[] BASE = {
    new BigInteger("15112221349535400772501151409588531511454012693041857206046113283949847762202"),
    new BigInteger("46316835694926478169428394003475163141307993866256225615783033603165251855960")
  };

  private final Random random;
  private final BigInteger secret;
  private final byte[] publicKey;

  HedgedEd25519(long seed) {
    random = new Random(seed);
    secret = new BigInteger(256, random).mod(L);
    publicKey = encode(times(secret, BASE));
  }

  /** The verifier key of this signer under {@code name}. */
  NoteVerifierKey key(String name) throws SignatureException {
    return new NoteVerifierKey(name, VerificationKey.of(publicKey));
  }

  /** A signature line over {@code text}, with a fresh nonce. */
  NoteSignature sign(String text, NoteVerifierKey as) {
    BigInteger r = new BigInteger(256, random).mod(L);
    byte[] rEncoded = encode(times(r, BASE));
    BigInteger k = littleEndian(sha512(rEncoded, publicKey, text.getBytes(StandardCharsets.UTF_8)));
    BigInteger s = r.add(k.multiply(secret)).mod(L);
    byte[] signature = new byte[64];
    System.arraycopy(rEncoded, 0, signature, 0, 32);
    System.arraycopy(toLittleEndian(s), 0, signature, 32, 32);
    return new NoteSignature(as.name(), as.keyHash(), signature);
  }

  private static BigInteger[] add(BigInteger[] p, BigInteger[] q) {
    BigInteger t = D.multiply(p[0]).multiply(q[0]).multiply(p[1]).multiply(q[1]).mod(P);
    BigInteger x = p[0].multiply(q[1]).add(p[1].multiply(q[0]));
    BigInteger y = p[1].multiply(q[1]).add(p[0].multiply(q[0]));
    return new BigInteger[] {
      x.multiply(BigInteger.ONE.add(t).modInverse(P)).mod(P),
      y.multiply(BigInteger.ONE.subtract(t).mod(P).modInverse(P)).mod(P)
    };
  }

  private static BigInteger[] times(BigInteger k, BigInteger[] point) {
    BigInteger[] sum = {BigInteger.ZERO, BigInteger.ONE};
    BigInteger[] doubled = point;
    for (int i = 0; i < k.bitLength(); i++) {
      if (k.testBit(i)) {
        sum = add(sum, doubled);
      }
      doubled = add(doubled, doubled);
    }
    return sum;
  }

  private static byte[] encode(BigInteger[] point) {
    byte[] out = toLittleEndian(point[1]);
    if (point[0].testBit(0)) {
      out[31] |= (byte) 0x80;
    }
    return out;
  }

  private static byte[] toLittleEndian(BigInteger v) {
    byte[] big = v.toByteArray();
    byte[] out = new byte[32];
    for (int i = 0; i < 32 && i < big.length; i++) {
      out[i] = big[big.length - 1 - i];
    }
    return out;
  }

  private static BigInteger littleEndian(byte[] bytes) {
    byte[] big = new byte[bytes.length + 1];
    for (int i = 0; i < bytes.length; i++) {
      big[bytes.length - i] = bytes[i];
    }
    return new BigInteger(big).mod(L);
  }

  private static byte[] sha512(byte[]... parts) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-512");
      for (byte[] part : parts) {
        md.update(part);
      }
      return md.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}

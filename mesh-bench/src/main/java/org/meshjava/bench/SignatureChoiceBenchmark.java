package org.meshjava.bench;

import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.EdECPrivateKeySpec;
import java.security.spec.NamedParameterSpec;
import java.util.Arrays;
import java.util.Random;
import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.meshjava.core.crypto.SigningKey;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;

/**
 * Ed25519 signing of one receipt-sized (300-byte) message with one key, in the forms we could call:
 * {@link SigningKey#sign} (what the receipt seal calls: BouncyCastle's {@code
 * Ed25519PrivateKeyParameters.sign}, which takes its cached public key under a lock and re-encodes
 * it per call), BouncyCastle's low-level {@code Ed25519.sign} given the seed and the encoded public
 * key directly, and the JDK's SunEC provider, once with a {@code Signature} made per call (what a
 * thread-safe signer would do) and once with one reused. Ed25519 is deterministic, so all four give
 * the same bytes; the setup checks that before anything is timed.
 */
public class SignatureChoiceBenchmark extends MicrosecondBenchmark {
  private final byte[] message = new byte[300];
  private SigningKey signingKey;
  private byte[] seed;
  private byte[] publicKey;
  private PrivateKey jdkKey;
  private Signature jdkReused;

  /** Makes one key in every form and checks that all forms sign alike. */
  @Setup
  public void setup() throws Exception {
    Random random = new Random(23);
    random.nextBytes(message);
    seed = new byte[SigningKey.SEED_LENGTH];
    random.nextBytes(seed);
    signingKey = SigningKey.fromSeed(seed);
    publicKey = signingKey.verificationKey().bytes();
    jdkKey =
        KeyFactory.getInstance("Ed25519")
            .generatePrivate(new EdECPrivateKeySpec(NamedParameterSpec.ED25519, seed));
    jdkReused = Signature.getInstance("Ed25519");
    jdkReused.initSign(jdkKey);
    byte[] expected = bouncyCastleSign();
    for (byte[] other : new byte[][] {bouncyCastleLowLevelSign(), jdkSign(), jdkReusedSign()}) {
      if (!Arrays.equals(expected, other)) {
        throw new IllegalStateException("the signing forms disagree on one message and key");
      }
    }
  }

  /** What the receipt seal does: {@link SigningKey#sign}. */
  @Benchmark
  public byte[] bouncyCastleSign() {
    return signingKey.sign(message);
  }

  /** BouncyCastle's low-level call with the encoded public key passed in. */
  @Benchmark
  public byte[] bouncyCastleLowLevelSign() {
    byte[] sig = new byte[Ed25519.SIGNATURE_SIZE];
    Ed25519.sign(seed, 0, publicKey, 0, message, 0, message.length, sig, 0);
    return sig;
  }

  /** The JDK's SunEC Ed25519, a {@code Signature} per call. */
  @Benchmark
  public byte[] jdkSign() throws Exception {
    Signature s = Signature.getInstance("Ed25519");
    s.initSign(jdkKey);
    s.update(message);
    return s.sign();
  }

  /** The JDK's SunEC Ed25519, one {@code Signature} reused (one thread only). */
  @Benchmark
  public byte[] jdkReusedSign() throws Exception {
    jdkReused.update(message);
    return jdkReused.sign();
  }
}

package org.meshjava.bench;

import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import org.meshjava.core.crypto.SigningKey;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;

/** Ed25519 signing: BouncyCastle (what {@link SigningKey} uses) against the JDK's provider. */
public class SignatureChoiceBenchmark extends MicrosecondBenchmark {
  private SigningKey bouncyCastle;
  private KeyPair jdk;
  private final byte[] message = new byte[700];

  /** Creates both keys. */
  @Setup
  public void setup() throws Exception {
    bouncyCastle = SigningKey.generate();
    jdk = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
  }

  /** BouncyCastle Ed25519. */
  @Benchmark
  public byte[] bouncyCastleSign() {
    return bouncyCastle.sign(message);
  }

  /** The JDK's SunEC Ed25519. */
  @Benchmark
  public byte[] jdkSign() throws Exception {
    Signature s = Signature.getInstance("Ed25519");
    s.initSign(jdk.getPrivate());
    s.update(message);
    return s.sign();
  }
}

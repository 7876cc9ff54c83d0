package org.meshjava.bench;

import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.util.concurrent.TimeUnit;
import org.meshjava.core.crypto.SigningKey;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** Ed25519 signing: BouncyCastle (what {@link SigningKey} uses) against the JDK's provider. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SignatureChoiceBenchmark {
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

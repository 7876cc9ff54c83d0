package org.meshjava.bench;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.meshjava.core.ContentId;
import org.meshjava.core.CostProfile;
import org.meshjava.core.DescribedEngine;
import org.meshjava.core.EngineDescriptor;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.Blake3;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.receipt.ChainHead;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;
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

/**
 * {@code Steward.serve} with an engine that does no work, against the cryptography any serve must
 * do: one Ed25519 signature and one BLAKE3 over an envelope-sized buffer. The ratio of the two is
 * the steward's overhead; the target is at most 1.5.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ServeOverheadBenchmark {
  private Steward steward;
  private ServeRequest request;
  private TokenSequence prompt;
  private SigningKey key;
  private byte[] envelopeSized;
  private byte[] signedCoreSized;

  /** An engine that returns 16 fixed tokens without work, so only the steward is measured. */
  static final class ZeroWorkEngine extends DescribedEngine {
    private static final TokenSequence TOKENS =
        TokenSequence.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);

    ZeroWorkEngine() {
      super(
          new EngineDescriptor("zero", Recipe.of("zero"), Fidelity.F2, CostProfile.perToken(100)));
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence prompt) {
      return new EngineResult(TOKENS, ServeOutcome.greedy(prompt.size(), TOKENS.size()));
    }
  }

  /** Builds the steward and sizes the floor's buffers from one real serve. */
  @Setup
  public void setup() throws Exception {
    key = SigningKey.generate();
    steward =
        Steward.builder(key).chainHead(ChainHead.GENESIS).backend(new ZeroWorkEngine()).build();
    byte[] text = "benchmark prompt".getBytes(StandardCharsets.UTF_8);
    request =
        ServeRequest.generation(
            ContentId.ofBytes(text), 16, new ServeBounds(16, Fidelity.F1, 1_000_000));
    prompt = TokenSequence.of(new int[16]);
    ServeResult sample = steward.serve(request, prompt);
    envelopeSized = new byte[sample.envelope().length()];
    signedCoreSized = new byte[sample.receipt().toSignedCore().encode().length + 80];
  }

  /** One whole serve: route, meter, seal, chain. */
  @Benchmark
  public ServeResult serve() throws Exception {
    return steward.serve(request, prompt);
  }

  /** The floor: sign a Sig_structure-sized buffer and hash an envelope-sized one. */
  @Benchmark
  public byte[] cryptoFloor() {
    byte[] sig = key.sign(signedCoreSized);
    byte[] id = Blake3.hash(envelopeSized);
    return sig[0] == id[0] ? sig : id;
  }
}

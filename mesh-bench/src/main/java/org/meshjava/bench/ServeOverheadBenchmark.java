package org.meshjava.bench;

import org.meshjava.core.CostProfile;
import org.meshjava.core.DescribedEngine;
import org.meshjava.core.EngineDescriptor;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.Blake3;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.receipt.ChainHead;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;

/**
 * {@code Steward.serve} with an engine that does no work, against the cryptography any serve must
 * do: one Ed25519 signature and one BLAKE3 over an envelope-sized buffer. The ratio of the two is
 * the steward's overhead; the target is at most 1.5.
 */
public class ServeOverheadBenchmark extends MicrosecondBenchmark {
  private Steward steward;
  private BenchServe serve;
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

    /** A steward signing with {@code key}, on a new chain, serving only this engine. */
    static Steward.Builder steward(SigningKey key) {
      return Steward.builder(key).chainHead(ChainHead.GENESIS).backend(new ZeroWorkEngine());
    }
  }

  /** Builds the steward and sizes the floor's buffers from one real serve. */
  @Setup
  public void setup() throws Exception {
    key = SigningKey.generate();
    steward = ZeroWorkEngine.steward(key).build();
    serve = BenchServe.of("benchmark prompt");
    ServeResult sample = steward.serve(serve.request(), serve.prompt());
    envelopeSized = new byte[sample.envelope().length()];
    signedCoreSized = new byte[sample.receipt().encodeSignedCore().length + 80];
  }

  /** One whole serve: route, meter, seal, chain. */
  @Benchmark
  public ServeResult serve() throws Exception {
    return steward.serve(serve.request(), serve.prompt());
  }

  /** The floor: sign a Sig_structure-sized buffer and hash an envelope-sized one. */
  @Benchmark
  public byte[] cryptoFloor() {
    byte[] sig = key.sign(signedCoreSized);
    byte[] id = Blake3.hash(envelopeSized);
    return sig[0] == id[0] ? sig : id;
  }
}

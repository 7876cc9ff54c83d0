package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.meshjava.core.CostProfile;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.NonceSource;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.TokenSink;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.Jcr1;
import org.meshjava.steward.observe.ServeObserver;
import org.meshjava.steward.observe.ServeStarted;
import org.meshjava.steward.observe.StewardListener;

/**
 * A streamed serve through the steward ({@link Steward#serve(ServeRequest, PromptText, Streamer)}):
 * what the caller's sink is handed is what is sealed, a sink's "stop" or failure cancels the engine
 * without failing the serve, and a refusal before the engine opens no sink. The HTTP binding's
 * streams rest on this; these tests pin it in the steward itself.
 */
class StreamedServeTest {
  private static final SigningKey KEY = SigningKey.fromSeed(new byte[32]);
  private static final PromptText PROMPT = PromptText.of("user 5\nhello\n");

  /** How the engine below hands its tokens over, and whether its result tells the truth. */
  private enum Handing {
    ONE_BY_ONE,
    IN_RUNS_OF_FIVE,
    /** Hands tokens 100, 101, … but returns a result whose third token is another. */
    NOT_ITS_RESULT,
    /** Hands every token, then returns a result that holds one token fewer. */
    MORE_THAN_ITS_RESULT,
    /** Hands runs of five, then returns a result whose third token is another. */
    RUNS_NOT_ITS_RESULT
  }

  /**
   * An engine that streams tokens 100, 101, … and stops when its sink asks it to; its name, rating
   * and cost are the reference engine's.
   */
  private static final class Streaming extends ForwardingEngine {
    private final Handing handing;
    final AtomicInteger serves = new AtomicInteger();

    Streaming(Handing handing) {
      super(
          ReferenceEngine.builder()
              .name("streaming")
              .fidelity(Fidelity.F2)
              .costProfile(CostProfile.perToken(10))
              .build());
      this.handing = handing;
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence prompt) {
      return serve(request, prompt, TokenSink.DISCARD);
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence prompt, TokenSink sink) {
      serves.incrementAndGet();
      int max = (int) request.maxTokens();
      int[] ids = new int[max];
      int n = 0;
      boolean goOn = true;
      while (goOn && n < max) {
        if (handing == Handing.IN_RUNS_OF_FIVE || handing == Handing.RUNS_NOT_ITS_RESULT) {
          int run = Math.min(5, max - n);
          for (int i = 0; i < run; i++) {
            ids[n + i] = 100 + n + i;
          }
          goOn = sink.acceptRun(TokenSequence.of(java.util.Arrays.copyOfRange(ids, n, n + run)));
          n += run;
        } else {
          ids[n] = 100 + n;
          goOn = sink.accept(ids[n]);
          n++;
        }
      }
      if (handing == Handing.NOT_ITS_RESULT || handing == Handing.RUNS_NOT_ITS_RESULT) {
        ids[2] = 7;
      }
      if (handing == Handing.MORE_THAN_ITS_RESULT) {
        n--;
      }
      return new EngineResult(
          TokenSequence.of(java.util.Arrays.copyOf(ids, n)), ServeOutcome.greedy(prompt.size(), n));
    }
  }

  /** A sink that records what it is handed, and answers "stop" once it holds {@code stopAt}. */
  private static final class Recording implements TokenSink {
    final List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
    final List<Integer> runs = Collections.synchronizedList(new ArrayList<>());
    private final int stopAt;

    Recording(int stopAt) {
      this.stopAt = stopAt;
    }

    @Override
    public boolean accept(int token) {
      tokens.add(Integer.toUnsignedLong(token));
      return tokens.size() < stopAt;
    }

    @Override
    public boolean acceptRun(TokenSequence run) {
      runs.add(run.size());
      for (int i = 0; i < run.size(); i++) {
        tokens.add(run.get(i));
      }
      return tokens.size() < stopAt;
    }
  }

  private static Steward steward(ServingEngine engine, StewardListener... listeners) {
    Steward.Builder b =
        Steward.builder(KEY)
            .chainHead(ChainHead.GENESIS)
            .meter(new org.meshjava.energy.EstimatorMeter())
            .nonces(NonceSource.fixed(new byte[16]))
            .clock(InstantSource.fixed(Instant.EPOCH))
            .backend(engine);
    for (StewardListener l : listeners) {
      b.listener(l);
    }
    return b.build();
  }

  private static ServeRequest request(int maxTokens) {
    return ServeRequest.generation(PROMPT, maxTokens, Fidelity.F1, 1_000_000);
  }

  private static List<Long> ids(TokenSequence tokens) {
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < tokens.size(); i++) {
      out.add(tokens.get(i));
    }
    return out;
  }

  private static List<Long> from100(int count) {
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(100L + i);
    }
    return out;
  }

  @Test
  void everyTokenReachesTheSinkInOrder_andTheSealedResultHoldsTheSameTokens() throws Exception {
    // 40 tokens: more than the steward's record of handed tokens first holds, so it must grow.
    Recording sink = new Recording(Integer.MAX_VALUE);
    Steward s = steward(new Streaming(Handing.ONE_BY_ONE));

    ServeResult r = s.serve(request(40), PROMPT, route -> sink);

    assertThat(sink.tokens).containsExactlyElementsOf(from100(40));
    assertThat(ids(r.tokens())).isEqualTo(sink.tokens);
    assertThat(Jcr1.open(r.envelope()).receipt().counters().tokensOut()).isEqualTo(40);
    assertThat(s.head().nextSequence()).isOne();
  }

  @Test
  void aSinkThatSaysStop_stopsTheEngine_andOnlyTheTokensProducedAreSealed() throws Exception {
    Recording sink = new Recording(5);
    Steward s = steward(new Streaming(Handing.ONE_BY_ONE));

    ServeResult r = s.serve(request(40), PROMPT, route -> sink);

    assertThat(sink.tokens).containsExactlyElementsOf(from100(5));
    assertThat(ids(r.tokens())).containsExactlyElementsOf(from100(5));
    assertThat(r.receipt().counters().tokensOut()).isEqualTo(5);
  }

  @Test
  void aRunTheEngineHandsOver_reachesTheSinkWhole() throws Exception {
    Recording sink = new Recording(Integer.MAX_VALUE);
    Steward s = steward(new Streaming(Handing.IN_RUNS_OF_FIVE));

    ServeResult r = s.serve(request(23), PROMPT, route -> sink);

    assertThat(sink.runs).containsExactly(5, 5, 5, 5, 3);
    assertThat(sink.tokens).containsExactlyElementsOf(from100(23));
    assertThat(ids(r.tokens())).isEqualTo(sink.tokens);

    // A sink that says stop after a run stops the engine there, the whole run produced.
    Recording stops = new Recording(7);
    ServeResult stopped = s.serve(request(23), PROMPT, route -> stops);
    assertThat(stops.runs).containsExactly(5, 5);
    assertThat(ids(stopped.tokens())).containsExactlyElementsOf(from100(10));
  }

  @Test
  void anEngineWhoseResultIsNotTheRunsItHandedOver_isRefusedInconsistent() {
    Steward s = steward(new Streaming(Handing.RUNS_NOT_ITS_RESULT));
    ServeException e =
        catchThrowableOfType(
            ServeException.class,
            () -> s.serve(request(8), PROMPT, route -> new Recording(Integer.MAX_VALUE)));
    assertThat(e.reason()).isEqualTo(ServeException.Reason.INCONSISTENT_OUTCOME);
  }

  @Test
  void aSinkThatThrows_cancelsTheEngine_andTheWorkDoneIsSealed() throws Exception {
    TokenSink throwsOnThird =
        new TokenSink() {
          int seen;

          @Override
          public boolean accept(int token) {
            if (++seen == 3) {
              throw new IllegalStateException("client gone");
            }
            return true;
          }
        };
    ServeResult r =
        steward(new Streaming(Handing.ONE_BY_ONE))
            .serve(request(40), PROMPT, route -> throwsOnThird);
    assertThat(ids(r.tokens())).containsExactlyElementsOf(from100(3));

    TokenSink runThrows =
        new TokenSink() {
          @Override
          public boolean accept(int token) {
            return true;
          }

          @Override
          public boolean acceptRun(TokenSequence run) {
            throw new IllegalStateException("client gone");
          }
        };
    ServeResult runs =
        steward(new Streaming(Handing.IN_RUNS_OF_FIVE))
            .serve(request(40), PROMPT, route -> runThrows);
    assertThat(ids(runs.tokens())).containsExactlyElementsOf(from100(5));
  }

  @Test
  void aStreamerThatCannotOpenItsSink_cancelsAtTheFirstToken_andTheServeIsStillSealed()
      throws Exception {
    Streamer failing =
        route -> {
          throw new IllegalStateException("no client");
        };
    ServeResult r = steward(new Streaming(Handing.ONE_BY_ONE)).serve(request(40), PROMPT, failing);
    assertThat(ids(r.tokens())).containsExactly(100L);

    ServeResult nullSink =
        steward(new Streaming(Handing.ONE_BY_ONE)).serve(request(40), PROMPT, route -> null);
    assertThat(ids(nullSink.tokens())).containsExactly(100L);
  }

  @Test
  void anEngineWhoseResultIsNotWhatItStreamed_isRefusedInconsistent_andNothingIsSealed() {
    for (Handing lying : List.of(Handing.NOT_ITS_RESULT, Handing.MORE_THAN_ITS_RESULT)) {
      Steward s = steward(new Streaming(lying));
      ServeException e =
          catchThrowableOfType(
              ServeException.class,
              () -> s.serve(request(8), PROMPT, route -> new Recording(Integer.MAX_VALUE)));
      assertThat(e.reason()).as("%s", lying).isEqualTo(ServeException.Reason.INCONSISTENT_OUTCOME);
      assertThat(e.getMessage()).contains("streamed tokens that are not its result's");
      assertThat(s.head().nextSequence()).isZero();
    }
  }

  @Test
  void theSameEngineUnstreamed_mayReturnWhatItLikes_sinceNoClientWasHandedAnything()
      throws Exception {
    // Without a streamer nothing was handed to a client, so there is no prefix to hold the result
    // to: the serve seals (the tokens differ from those the engine would have streamed).
    ServeResult r = steward(new Streaming(Handing.NOT_ITS_RESULT)).serve(request(8), PROMPT);
    assertThat(ids(r.tokens())).element(2).isEqualTo(7L);
  }

  @Test
  void aServeRefusedBeforeTheEngine_opensNoSink() {
    Streaming engine = new Streaming(Handing.ONE_BY_ONE);
    Steward s = steward(engine);
    AtomicInteger opened = new AtomicInteger();
    ServeException e =
        catchThrowableOfType(
            ServeException.class,
            () ->
                s.serve(
                    request(8).withModel("another"),
                    PROMPT,
                    route -> {
                      opened.incrementAndGet();
                      return TokenSink.DISCARD;
                    }));
    assertThat(e.reason()).isEqualTo(ServeException.Reason.NO_ADMISSIBLE_BACKEND);
    assertThat(opened).hasValue(0);
    assertThat(engine.serves).hasValue(0);
  }

  @Test
  void aListenerIsToldWhetherAServeStreams() throws Exception {
    List<Boolean> streamed = Collections.synchronizedList(new ArrayList<>());
    StewardListener listener =
        new StewardListener() {
          @Override
          public ServeObserver serveStarted(ServeStarted serve) {
            streamed.add(serve.streamed());
            return ServeObserver.NONE;
          }
        };
    Steward s = steward(new Streaming(Handing.ONE_BY_ONE), listener);

    s.serve(request(4), PROMPT, route -> TokenSink.DISCARD);
    s.serve(request(4), PROMPT);
    s.serve(request(4), PROMPT, Streamer.NONE);

    assertThat(streamed).containsExactly(true, false, false);
  }
}

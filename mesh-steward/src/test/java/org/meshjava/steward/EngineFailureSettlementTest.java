package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.meshjava.core.CostProfile;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Provenance;
import org.meshjava.core.ServeLimits;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.energy.EnergyMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.JournalEntry;
import org.meshjava.router.Inadmissibility;

/**
 * Issue 14 item 3: an engine failure used to debit the grant its whole joule ceiling for no work,
 * and an OutOfMemoryError from an engine escaped unsettled (no debit, the ceiling held reserved).
 * Now whatever an engine throws settles the serve at the energy metered up to the failure, in the
 * journal, before the refusal (or, for the JVM failing, before that error passes on as it is); a
 * request over a backend's limits never reaches it.
 */
class EngineFailureSettlementTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 500_000;
  private static final long UJ_PER_TOKEN = 100;

  private final GrantFixture f = new GrantFixture();

  /** An engine named "ref" at 100 µJ per token that throws what {@code failure} makes. */
  private static StewardGrantTest.Delegating failing(Supplier<Throwable> failure) {
    ReferenceEngine inner =
        ReferenceEngine.builder()
            .name("ref")
            .costProfile(CostProfile.perToken(UJ_PER_TOKEN))
            .build();
    return new StewardGrantTest.Delegating(inner) {
      @Override
      public EngineResult serve(ServeRequest r, TokenSequence p) throws EngineException {
        Throwable t = failure.get();
        if (t instanceof EngineException e) {
          throw e;
        }
        if (t instanceof RuntimeException e) {
          throw e;
        }
        throw (Error) t;
      }
    };
  }

  private Steward.Builder steward(EnergyMeter meter, DurableMemoryJournal journal) {
    return f.bare(journal).meter(meter);
  }

  private static long recurse(long n) {
    return n <= 0 ? 0 : 1 + recurse(n + 1);
  }

  private static List<Supplier<Throwable>> failures() {
    return List.of(
        () -> new EngineException("the backend gave up"),
        () -> new IllegalStateException("a bug in the engine"),
        () -> new OutOfMemoryError("Java heap space"),
        () -> {
          try {
            recurse(1);
            return new AssertionError("unreachable");
          } catch (StackOverflowError e) {
            return e;
          }
        });
  }

  @Test
  void engineFailure_ofAnyKind_debitsWhatWasMetered_notTheCeiling_andJournalsItFirst()
      throws Exception {
    List<Supplier<Throwable>> failures = failures();
    for (int i = 0; i < failures.size(); i++) {
      Supplier<Throwable> failure = failures.get(i);
      GrantChain chain = f.chain(BUDGET);
      DurableMemoryJournal journal = new DurableMemoryJournal();
      try (Steward s =
          steward(new org.meshjava.energy.EstimatorMeter(), journal)
              .backend(failing(failure))
              .build()) {
        ServeRequest req = GrantFixture.request("hello", 10, CEILING);
        Throwable t =
            catchThrowable(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)));
        if (failure.get() instanceof OutOfMemoryError) {
          // The JVM failing passes as it is once settled (JvmFailure), as wherever the steward
          // asks an engine something; the settlement below is the same.
          assertThat(t).as("failure %d", i).isInstanceOf(OutOfMemoryError.class);
        } else {
          assertThat(t).as("failure %d", i).isInstanceOf(ServeException.class);
          ServeException e = (ServeException) t;
          assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED);
          assertThat(e.getMessage()).doesNotContain("\tat ");
        }
        // The estimator's figure for what ran: the 5 prompt tokens the engine was handed.
        long metered = UJ_PER_TOKEN * req.promptTokens();
        assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET - metered);
        for (var link : chain.ids()) {
          assertThat(s.spend().spend(link).reservedUj()).isZero();
          assertThat(s.spend().spend(link).debitedUj()).isEqualTo(metered);
        }
        JournalEntry.Debited debited = (JournalEntry.Debited) journal.records().getLast().entry();
        assertThat(debited.debitedUj()).isEqualTo(metered);
        assertThat(debited.energy().provenance()).isEqualTo(Provenance.Estimator);
        assertThat(s.unresolved()).isEmpty();
        assertThat(s.head().nextSequence()).isZero();
      }
    }
  }

  @Test
  void engineFailure_underALiveCounter_debitsTheReading() throws Exception {
    GrantChain chain = f.chain(BUDGET);
    try (Steward s =
        steward(
                new RecordingMeter(new ArrayList<>(), OptionalLong.of(12_345)),
                new DurableMemoryJournal())
            .backend(failing(() -> new EngineException("gave up")))
            .build()) {
      ServeRequest req = GrantFixture.request("hello", 10, CEILING);
      catchThrowableOfType(
          ServeException.class,
          () -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)));
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET - 12_345);
    }
  }

  @Test
  void engineFailure_whenTheMeterCannotCloseEither_debitsTheCeiling() throws Exception {
    GrantChain chain = f.chain(BUDGET);
    EnergyMeter broken = new BrokenMeter("counter vanished");
    try (Steward s =
        steward(broken, new DurableMemoryJournal())
            .backend(failing(() -> new EngineException("gave up")))
            .build()) {
      ServeRequest req = GrantFixture.request("hello", 10, CEILING);
      catchThrowableOfType(
          ServeException.class,
          () -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)));
      // Nothing was metered: the ceiling, as for a crash.
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET - CEILING);
    }
  }

  /** The meter's own failure is kept on the engine's, not lost: both are what went wrong. */
  @Test
  void engineFailure_whenTheMeterCannotCloseEither_keepsTheMetersFailureOnTheCause()
      throws Exception {
    GrantChain chain = f.chain(BUDGET);
    try (Steward s =
        steward(new BrokenMeter("counter vanished"), new DurableMemoryJournal())
            .backend(failing(() -> new EngineException("gave up")))
            .build()) {
      ServeException e = refusal(s, chain);
      assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED);
      assertThat(e.getCause()).hasMessage("gave up");
      assertThat(e.getCause().getSuppressed())
          .singleElement()
          .satisfies(m -> assertThat(m).hasMessage("counter vanished"));
    }
  }

  /**
   * The refusal says what the engine reported, or, where it reported nothing, which class it threw:
   * an exception without a message is still an {@code ENGINE_FAILED} refusal, never a crash of the
   * serve. Regression: a message-less {@code NullPointerException} or {@code StackOverflowError}
   * was refused "it gave no reason", leaving its operator nothing to look for.
   */
  @Test
  void engineFailure_isRefusedWithTheEnginesReason_orTheClassItThrew() throws Exception {
    List<Supplier<Throwable>> failures =
        List.of(
            () -> new EngineException("the backend gave up"),
            () -> new IllegalStateException(),
            () -> new IllegalStateException("  "),
            () -> new NullPointerException(),
            // Wrappers made without words: Java gives each its cause's toString as its message.
            () -> new RuntimeException(new IllegalStateException()),
            () -> new java.io.UncheckedIOException(new java.io.IOException("the disk said no")),
            () -> new RuntimeException(new RuntimeException(new EngineException("out of slots"))),
            // Words declared the client's: at once, and past wrappers without words of their own.
            () -> EngineException.toClient("the prompt is too long"),
            () -> new RuntimeException(new EngineException("at /models/a.bin", "no room", null)));
    List<String> messages =
        List.of(
            "ENGINE_FAILED: backend ref failed: the backend gave up",
            "ENGINE_FAILED: backend ref failed: it threw java.lang.IllegalStateException, and it gave"
                + " no reason",
            "ENGINE_FAILED: backend ref failed: it threw java.lang.IllegalStateException, and it gave"
                + " no reason",
            "ENGINE_FAILED: backend ref failed: it threw java.lang.NullPointerException, and it gave"
                + " no reason",
            "ENGINE_FAILED: backend ref failed: java.lang.IllegalStateException",
            "ENGINE_FAILED: backend ref failed: java.io.IOException: the disk said no",
            "ENGINE_FAILED: backend ref failed: java.lang.RuntimeException:"
                + " org.meshjava.core.EngineException: out of slots",
            "ENGINE_FAILED: backend ref failed: the prompt is too long",
            "ENGINE_FAILED: backend ref failed: org.meshjava.core.EngineException: at"
                + " /models/a.bin");
    // What a client reads (ServeException#shown): the words the engine declared its client's, or
    // (null here) a reference to the operator's log, never the engine's other words, which may
    // name a path or a key, nor the Java class (SPEC.md 60.10).
    List<@org.jspecify.annotations.Nullable String> shown =
        java.util.Arrays.asList(
            null,
            null,
            null,
            null,
            null,
            // Regression: an engine's own words reached the client whatever they said.
            null,
            null,
            "backend ref failed: the prompt is too long",
            "backend ref failed: no room");
    for (int i = 0; i < failures.size(); i++) {
      GrantChain chain = f.chain(BUDGET);
      try (Steward s =
          steward(new org.meshjava.energy.EstimatorMeter(), new DurableMemoryJournal())
              .backend(failing(failures.get(i)))
              .build()) {
        ServeException e = refusal(s, chain);
        assertThat(e).as("failure %d", i).isNotNull();
        assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED);
        assertThat(e.getMessage()).isEqualTo(messages.get(i));
        if (shown.get(i) == null) {
          assertThat(e.shown())
              .as("failure %d", i)
              .matches(
                  "backend ref failed: its own words are in the server's log, under reference"
                      + " [0-9a-f]{16}");
        } else {
          assertThat(e.shown()).as("failure %d", i).isEqualTo(shown.get(i));
        }
      }
    }
  }

  /**
   * SPEC.md 60.1 step 3: a failed engine's {@code Debited} record is synced before the serve is
   * refused, since no {@code Sealed} record follows whose sync would cover it. A sync that fails is
   * the refusal then: the debit was not recorded.
   */
  @Test
  void engineFailure_whoseDebitCannotBeSynced_isRefusedNotRecorded() throws Exception {
    GrantChain chain = f.chain(BUDGET);
    FailingJournal journal =
        FailingJournal.on(JournalEntry.Debited.class, FailingJournal.When.AWAIT);
    try (Steward s =
        f.bare(journal)
            .meter(new org.meshjava.energy.EstimatorMeter())
            .backend(failing(() -> new EngineException("gave up")))
            .build()) {
      ServeException e = refusal(s, chain);
      assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED);
      assertThat(journal.failed()).isTrue();
    }
  }

  /** Serves a granted request on {@code s}, which must refuse it, and returns the refusal. */
  private ServeException refusal(Steward s, GrantChain chain) {
    ServeRequest req = GrantFixture.request("hello", 10, CEILING);
    return catchThrowableOfType(
        ServeException.class, () -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)));
  }

  @Test
  void requestOverTheEnginesContext_isRefusedBeforeAuthorising_withNoWorkNoDebitNoRecord()
      throws Exception {
    GrantChain chain = f.chain(BUDGET);
    DurableMemoryJournal journal = new DurableMemoryJournal();
    boolean[] ran = {false};
    ReferenceEngine inner =
        ReferenceEngine.builder()
            .name("ref")
            .costProfile(CostProfile.perToken(UJ_PER_TOKEN))
            .build();
    StewardGrantTest.Delegating eightTokens =
        new StewardGrantTest.Delegating(inner) {
          @Override
          public OptionalLong contextTokens() {
            return OptionalLong.of(8);
          }

          @Override
          public EngineResult serve(ServeRequest r, TokenSequence p) throws EngineException {
            ran[0] = true;
            return super.serve(r, p);
          }
        };
    try (Steward s =
        steward(new org.meshjava.energy.EstimatorMeter(), journal).backend(eightTokens).build()) {
      // "hello" is five byte tokens: with four more it would need nine of the engine's eight.
      ServeRequest over = GrantFixture.request("hello", 4, CEILING);
      ServeException e =
          catchThrowableOfType(
              ServeException.class,
              () -> s.serve(over, GrantFixture.payload(over), f.present(chain, over)));
      assertThat(e).isNotNull();
      assertThat(e.reason()).isEqualTo(ServeException.Reason.OVER_CONTEXT);
      assertThat(ran[0]).isFalse();
      assertThat(journal.records()).isEmpty();
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET);
      // Exactly at the context it serves.
      ServeRequest fits = GrantFixture.request("hello", 3, CEILING);
      s.serve(fits, GrantFixture.payload(fits), f.present(chain, fits));
      assertThat(ran[0]).isTrue();
    }
  }

  @Test
  void requestOverTheBackendsLimits_isRefusedWhileRouting_withNoDecisionNoWorkNoDebit()
      throws Exception {
    GrantChain chain = f.chain(BUDGET);
    DurableMemoryJournal journal = new DurableMemoryJournal();
    try (Steward s =
        steward(new org.meshjava.energy.EstimatorMeter(), journal)
            .backend(
                ReferenceEngine.builder()
                    .name("ref")
                    .costProfile(CostProfile.perToken(0))
                    .maxOutputTokens(1_000)
                    .build())
            .cap("ref", ServeLimits.NONE.withMaxJouleCeilingUj(CEILING))
            .build()) {
      for (ServeRequest req :
          List.of(
              // Above the engine's output limit, at the top of the u32 range and past 2^31 - 1.
              GrantFixture.request("hello", 0xFFFF_FFFFL, CEILING),
              GrantFixture.request("hello", 3_000_000_000L, CEILING),
              GrantFixture.request("hello", Integer.MAX_VALUE, CEILING),
              GrantFixture.request("hello", 1_001, CEILING),
              // Above the operator's ceiling cap.
              GrantFixture.request("hello", 10, CEILING + 1))) {
        ServeException e =
            catchThrowableOfType(
                ServeException.class,
                () -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)));
        assertThat(e).isNotNull();
        assertThat(e.reason()).isEqualTo(ServeException.Reason.NO_ADMISSIBLE_BACKEND);
        assertThat(e.candidates().getFirst().inadmissibility().orElseThrow().kind())
            .isEqualTo(Inadmissibility.Kind.OVER_LIMIT);
      }
      assertThat(journal.records()).isEmpty();
      assertThat(s.spend().remainingUj(chain)).isEqualTo(BUDGET);
      // At the limits it serves.
      ServeRequest atLimit = GrantFixture.request("hello", 1_000, CEILING);
      assertThat(
              s.serve(atLimit, GrantFixture.payload(atLimit), f.present(chain, atLimit))
                  .outcome()
                  .tokensOut())
          .isEqualTo(1_000);
    }
  }
}

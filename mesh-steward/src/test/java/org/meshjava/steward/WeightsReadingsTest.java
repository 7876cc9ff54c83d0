package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.WeightsBinding;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.ModelIn;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;

/**
 * Every reading of an engine's weights during one serve (when it is chosen and the grant decided,
 * before the work, after it) must name the same binding, or nothing is sealed (§2). Regression: the
 * steward compared only the readings before and after the work, so an engine that named the grant's
 * permitted weights at authorisation and others from then on was sealed with the others under a
 * {@code ModelIn} grant that allowed only the first.
 */
class WeightsReadingsTest {
  private static final WeightsBinding PERMITTED =
      new WeightsBinding(ContentId.ofBytes(new byte[] {1}), "fp32");
  private static final WeightsBinding OTHER =
      new WeightsBinding(ContentId.ofBytes(new byte[] {2}), "fp32");

  final GrantFixture f = new GrantFixture();

  /** An engine whose named weights a test switches at a chosen moment. */
  static final class Switching extends StewardGrantTest.Delegating {
    final AtomicReference<Optional<WeightsBinding>> answer = new AtomicReference<>();
    volatile Optional<WeightsBinding> whileServing = Optional.empty();
    volatile int serves;

    Switching(Optional<WeightsBinding> initial) {
      super(ReferenceEngine.builder().name("switching").workPerToken(1).build());
      answer.set(initial);
    }

    @Override
    public Optional<WeightsBinding> weights() {
      return answer.get();
    }

    @Override
    public EngineResult serve(ServeRequest r, TokenSequence p) throws EngineException {
      serves++;
      EngineResult result = super.serve(r, p);
      whileServing.ifPresent(w -> answer.set(Optional.of(w)));
      return result;
    }
  }

  /**
   * A journal that runs a hook when the grant decision is recorded: between the first two readings.
   */
  static final class Hooked implements Journal {
    final DurableMemoryJournal inner = new DurableMemoryJournal();
    final Runnable onAuthorised;

    Hooked(Runnable onAuthorised) {
      this.onAuthorised = onAuthorised;
    }

    @Override
    public List<JournalRecord> recovered() {
      return inner.recovered();
    }

    @Override
    public Pending enqueue(JournalEntry entry) throws JournalException {
      Pending p = inner.enqueue(entry);
      if (entry instanceof JournalEntry.Authorised) {
        onAuthorised.run();
      }
      return p;
    }

    @Override
    public boolean durable() {
      return true;
    }

    @Override
    public String describe() {
      return "hooked " + inner.describe();
    }

    @Override
    public void close() {
      inner.close();
    }

    List<JournalRecord> records() {
      return inner.records();
    }
  }

  @Test
  void grantedServe_whenTheEngineNamesOtherWeightsAfterAuthorisation_isRefusedBeforeAnyWork()
      throws Exception {
    Switching engine = new Switching(Optional.of(PERMITTED));
    Hooked journal = new Hooked(() -> engine.answer.set(Optional.of(OTHER)));
    GrantChain chain = f.chain(1_000_000, ModelIn.of(PERMITTED.digest()));
    try (Steward s = f.bare(journal).backend(engine).build()) {
      ServeRequest req = GrantFixture.request("swap after deciding", 10, 100_000);

      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.WEIGHTS_CHANGED));

      assertThat(engine.serves).as("refused before the engine ran").isZero();
      assertThat(s.head().nextSequence()).as("nothing sealed").isZero();
      assertThat(s.spend().remainingUj(chain)).as("settled at nothing").isEqualTo(1_000_000);
      assertThat(journal.records())
          .extracting(rec -> rec.entry().getClass().getSimpleName())
          .containsExactly("Chain", "Authorised", "Debited");
    }
  }

  @Test
  void grantedServe_whenTheEngineNamesOtherWeightsAfterTheWork_isRefusedAndDebited()
      throws Exception {
    Switching engine = new Switching(Optional.of(PERMITTED));
    engine.whileServing = Optional.of(OTHER);
    DurableMemoryJournal journal = new DurableMemoryJournal();
    GrantChain chain = f.chain(1_000_000, ModelIn.of(PERMITTED.digest()));
    try (Steward s = f.bare(journal).backend(engine).build()) {
      ServeRequest req = GrantFixture.request("swap while serving", 10, 100_000);

      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.WEIGHTS_CHANGED));

      assertThat(engine.serves).isEqualTo(1);
      assertThat(s.head().nextSequence()).as("nothing sealed").isZero();
      assertThat(s.spend().remainingUj(chain))
          .as("the work ran, so it is debited")
          .isLessThan(1_000_000);
    }
  }

  @Test
  void grantedServe_whenTheEngineSwitchesAfterAuthorisationAndBackBeforeTheEnd_isRefused()
      throws Exception {
    // Authorised on the permitted weights, other weights before the work, the permitted ones
    // again after it: the readings before and after alone could not show it if they agreed.
    Switching engine = new Switching(Optional.of(PERMITTED));
    engine.whileServing = Optional.of(PERMITTED);
    Hooked journal = new Hooked(() -> engine.answer.set(Optional.of(OTHER)));
    GrantChain chain = f.chain(1_000_000, ModelIn.of(PERMITTED.digest()));
    try (Steward s = f.bare(journal).backend(engine).build()) {
      ServeRequest req = GrantFixture.request("swap and back", 10, 100_000);

      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.WEIGHTS_CHANGED));
      assertThat(s.head().nextSequence()).isZero();
    }
  }

  @Test
  void grantedServe_whenEveryReadingAgrees_sealsThatBinding() throws Exception {
    Switching engine = new Switching(Optional.of(PERMITTED));
    GrantChain chain = f.chain(1_000_000, ModelIn.of(PERMITTED.digest()));
    try (Steward s = f.bare(new DurableMemoryJournal()).backend(engine).build()) {
      ServeRequest req = GrantFixture.request("steady", 10, 100_000);

      ServeResult r = s.serve(req, GrantFixture.payload(req), f.present(chain, req));

      assertThat(r.receipt().weights()).contains(PERMITTED);
    }
  }

  @Test
  void ungrantedServe_whenTheEngineSwitchesBetweenAnyTwoReadings_isRefused() throws Exception {
    for (List<Optional<WeightsBinding>> readings :
        List.of(
            List.of(Optional.of(PERMITTED), Optional.of(OTHER), Optional.of(OTHER)),
            List.of(Optional.of(PERMITTED), Optional.of(PERMITTED), Optional.of(OTHER)),
            List.of(Optional.of(PERMITTED), Optional.of(OTHER), Optional.of(PERMITTED)),
            List.of(Optional.<WeightsBinding>empty(), Optional.of(OTHER), Optional.of(OTHER)))) {
      ScriptedEngine engine =
          new ScriptedEngine(
                  "scripted",
                  org.meshjava.core.Fidelity.F2,
                  10,
                  new java.util.ArrayList<>(),
                  ScriptedEngine.greedy())
              .reportingWeights(readings);
      try (Steward s = f.bare(new DurableMemoryJournal()).backend(engine).build()) {
        ServeRequest req = GrantFixture.request("ungranted", 4, 100_000);

        assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req)))
            .as("readings %s", readings)
            .isInstanceOfSatisfying(
                ServeException.class,
                e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.WEIGHTS_CHANGED));
        assertThat(s.head().nextSequence()).isZero();
      }
    }
  }
}

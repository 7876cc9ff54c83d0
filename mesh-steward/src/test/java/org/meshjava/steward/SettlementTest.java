package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.IdentifiedRequest;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.energy.EnergyMeter;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.DebitResult;
import org.meshjava.jcp.Gate;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Revocations;
import org.meshjava.jcp.SpendLedger;
import org.meshjava.journal.InMemoryJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.MappedReadFault;
import org.meshjava.steward.observe.StewardListener;

/**
 * A serve's grant is settled exactly once, whichever way it ends (issue 18): one handle owns the
 * reservation, and the pipeline settles it in a {@code finally}. Each exit path below is checked
 * for one debit journalled, one debit reported, and nothing left reserved.
 */
class SettlementTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 500_000;
  private static final long UJ_PER_TOKEN = 100;

  private final GrantFixture f = new GrantFixture();

  @Test
  void settle_twice_isRefused() throws Exception {
    Settlement ungranted = Settlement.ungranted();
    assertThat(ungranted.settle(true)).isEmpty();
    assertThat(ungranted.settled()).isTrue();
    assertThatIllegalStateException().isThrownBy(() -> ungranted.settle(true));
    assertThatIllegalStateException().isThrownBy(() -> ungranted.charge(Energy.estimated(1)));
  }

  @Test
  void settle_twice_onAGrant_isRefused_andDebitsOnce() throws Exception {
    GrantChain chain = f.chain(BUDGET);
    Counting counting = new Counting();
    InMemoryJournal journal = new InMemoryJournal();
    Authoriser authoriser = authoriser(journal, counting);
    ServingEngine engine = ReferenceEngine.builder().name("ref").build();
    ServeRequest req = GrantFixture.request("hello", 10, CEILING);
    Settlement held =
        authoriser.authorise(
            f.present(chain, req), IdentifiedRequest.of(req), engine.name(), engine.weights());

    held.charge(Energy.estimated(1_000));
    assertThat(held.settle(true)).isPresent();

    assertThatIllegalStateException().isThrownBy(() -> held.settle(true));
    assertThatIllegalStateException().isThrownBy(() -> held.charge(Energy.estimated(2_000)));
    assertThat(counting.debits).hasSize(1);
    assertThat(journal.records().stream().filter(r -> r.entry() instanceof JournalEntry.Debited))
        .hasSize(1);
    assertThat(authoriser.spend().remainingUj(chain)).isEqualTo(BUDGET - 1_000);
  }

  @Test
  void settle_withNothingCharged_debitsTheCeiling() throws Exception {
    GrantChain chain = f.chain(BUDGET);
    Authoriser authoriser = authoriser(new InMemoryJournal(), new Counting());
    ServingEngine engine = ReferenceEngine.builder().name("ref").build();
    ServeRequest req = GrantFixture.request("hello", 10, CEILING);
    Settlement held =
        authoriser.authorise(
            f.present(chain, req), IdentifiedRequest.of(req), engine.name(), engine.weights());

    assertThat(held.settle(false).orElseThrow().debitedUj()).isEqualTo(CEILING);
    assertThat(authoriser.spend().remainingUj(chain)).isEqualTo(BUDGET - CEILING);
  }

  @Test
  void served_settlesOnce_atTheMeteredFigure() throws Exception {
    Outcome o = serve(greedy(), new EstimatorMeter(), new DurableMemoryJournal());
    assertThat(o.failure).isNull();
    o.settledOnceAt(UJ_PER_TOKEN * 15);
  }

  @Test
  void engineThrows_settlesOnce_atWhatWasMetered() throws Exception {
    Outcome o =
        serve(
            (r, p) -> {
              throw new EngineException("gave up");
            },
            new EstimatorMeter(),
            new DurableMemoryJournal());
    o.refused(ServeException.Reason.ENGINE_FAILED);
    o.settledOnceAt(UJ_PER_TOKEN * 5);
  }

  @Test
  void postCheckRefusal_settlesOnce_atTheMeteredFigure() throws Exception {
    // An engine that claims more than it advertises is refused after the work (§3.2.1).
    Outcome o =
        serve(
            (r, p) ->
                new EngineResult(
                    TokenSequence.of(new int[] {1, 2}),
                    ServeOutcome.greedy(p.size(), 2).withDeliveredFidelity(Fidelity.F3)),
            new EstimatorMeter(),
            new DurableMemoryJournal());
    o.refused(ServeException.Reason.FIDELITY_OVERCLAIM);
    o.settledOnceAt(UJ_PER_TOKEN * 7);
  }

  @Test
  void meterFailure_afterTheWork_settlesOnce_atTheCeiling() throws Exception {
    // Nothing metered what ran, so the serve is debited as a crash is: its whole ceiling (§2.2).
    Outcome o = serve(greedy(), new BrokenMeter("counter lost"), new DurableMemoryJournal());
    assertThat(o.failure).isInstanceOf(IllegalStateException.class).hasMessage("counter lost");
    o.settledOnceAt(CEILING);
  }

  @Test
  void sealFailure_settlesOnce_atTheMeteredFigure() throws Exception {
    FailingJournal journal =
        FailingJournal.on(JournalEntry.Sealed.class, FailingJournal.When.AWAIT);
    Outcome o = serve(greedy(), new EstimatorMeter(), journal);
    o.refused(ServeException.Reason.NOT_RECORDED);
    assertThat(journal.failed()).isTrue();
    o.settledOnceAt(UJ_PER_TOKEN * 15);
  }

  // ---- support --------------------------------------------------------------------------------

  private Authoriser authoriser(Journal journal, StewardListener listener) {
    return new Authoriser(
        Gate.create(f.steward, SpendLedger.inMemory(), Revocations.none()),
        journal,
        InstantSource.fixed(GrantFixture.NOW),
        List.of(),
        Optional.empty(),
        listener,
        MappedReadFault::deliverPending);
  }

  private static ScriptedEngine.Behaviour greedy() {
    return ScriptedEngine.greedy();
  }

  /** What one granted serve left: its failure (or null), the debits reported, the journal. */
  private record Outcome(
      Throwable failure,
      List<DebitResult> debits,
      List<JournalRecord> records,
      long remainingUj,
      long reservedUj) {
    void refused(ServeException.Reason reason) {
      assertThat(failure)
          .isInstanceOfSatisfying(
              ServeException.class, e -> assertThat(e.reason()).isEqualTo(reason));
    }

    void settledOnceAt(long debitedUj) {
      assertThat(debits).as("debits reported").hasSize(1);
      assertThat(debits.getFirst().debitedUj()).isEqualTo(debitedUj);
      List<JournalEntry.Debited> journalled =
          records.stream()
              .map(JournalRecord::entry)
              .filter(JournalEntry.Debited.class::isInstance)
              .map(JournalEntry.Debited.class::cast)
              .toList();
      assertThat(journalled).as("debits journalled").hasSize(1);
      assertThat(journalled.getFirst().debitedUj()).isEqualTo(debitedUj);
      assertThat(reservedUj).as("left reserved").isZero();
      assertThat(remainingUj).isEqualTo(BUDGET - debitedUj);
    }
  }

  private Outcome serve(ScriptedEngine.Behaviour behaviour, EnergyMeter meter, Journal journal)
      throws Exception {
    GrantChain chain = f.chain(BUDGET);
    Counting counting = new Counting();
    ScriptedEngine engine =
        new ScriptedEngine(
            "scripted", Fidelity.F1, UJ_PER_TOKEN, new CopyOnWriteArrayList<>(), behaviour);
    try (Steward s = f.bare(journal).meter(meter).backend(engine).listener(counting).build()) {
      ServeRequest req = GrantFixture.request("hello", 10, CEILING);
      Throwable failure =
          catchThrowable(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)));
      long reserved = 0;
      for (var link : chain.ids()) {
        reserved += s.spend().spend(link).reservedUj();
      }
      List<JournalRecord> records =
          journal instanceof FailingJournal failing
              ? failing.records()
              : ((DurableMemoryJournal) journal).records();
      return new Outcome(failure, counting.debits, records, s.spend().remainingUj(chain), reserved);
    }
  }

  /** Notes every debit the steward reports. */
  private static final class Counting implements StewardListener {
    final List<DebitResult> debits = new CopyOnWriteArrayList<>();

    @Override
    public void debited(DebitResult debit) {
      debits.add(debit);
    }
  }
}

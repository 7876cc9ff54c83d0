package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Revocation;
import org.meshjava.journal.JournalEntry;

/**
 * What a steward does when its journal cannot record (§2.2), with a failing {@link FailingJournal}
 * double: an authorisation that cannot be journalled runs no engine and keeps no reservation; a
 * journal that fails for good mid-serve hands out no receipt then or later; a revocation that
 * cannot be journalled is refused.
 */
class JournalFailureTest {
  final GrantFixture f = new GrantFixture();
  final List<String> events = new ArrayList<>();
  final ScriptedEngine engine =
      new ScriptedEngine("ref", Fidelity.F1, 100, events, ScriptedEngine.greedy());

  Steward steward(FailingJournal journal) {
    return f.bare(journal).backend(engine).build();
  }

  @ParameterizedTest
  @EnumSource(FailingJournal.When.class)
  void authorisationThatCannotBeJournalled_isRefused_runsNoEngine_andReleasesItsReservation(
      FailingJournal.When when) throws Exception {
    GrantChain chain = f.chain(1_000_000);
    FailingJournal journal = FailingJournal.on(JournalEntry.Authorised.class, when);
    try (Steward s = steward(journal)) {
      ServeRequest req = GrantFixture.request("not recorded", 4, 50_000);
      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED));
      assertThat(engine.serves()).isZero();
      assertThat(s.spend().remainingUj(chain)).isEqualTo(1_000_000);
      assertThat(s.head().nextSequence()).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(FailingJournal.When.class)
  void journalFailingForGoodAtTheDebit_handsOutNoReceipt_thenOrLater(FailingJournal.When when)
      throws Exception {
    GrantChain chain = f.chain(1_000_000);
    FailingJournal journal = FailingJournal.on(JournalEntry.Debited.class, when);
    try (Steward s = steward(journal)) {
      ServeRequest req = GrantFixture.request("mid-serve", 4, 50_000);
      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED));
      assertNothingMoreIsHandedOut(s, chain);
    }
  }

  /**
   * An engine that fails, and then a debit that cannot be journalled: the caller must act on the
   * journal's failure, but the engine's reason rides on it, rather than being dropped by the
   * settle's throw in the serve's {@code finally}.
   */
  @ParameterizedTest
  @EnumSource(FailingJournal.When.class)
  void aDebitThatCannotBeJournalled_afterTheEngineFailed_keepsTheEnginesReasonOnTheRefusal(
      FailingJournal.When when) throws Exception {
    GrantChain chain = f.chain(1_000_000);
    FailingJournal journal = FailingJournal.on(JournalEntry.Debited.class, when);
    ScriptedEngine failing =
        new ScriptedEngine(
            "ref",
            Fidelity.F1,
            100,
            events,
            (request, prompt) -> {
              throw new org.meshjava.core.EngineException("the device fell off the bus");
            });
    try (Steward s = f.bare(journal).backend(failing).build()) {
      ServeRequest req = GrantFixture.request("fails, then the debit fails", 4, 50_000);
      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED);
                assertThat(e.getSuppressed())
                    .singleElement()
                    .isInstanceOfSatisfying(
                        ServeException.class,
                        engineFailed -> {
                          assertThat(engineFailed.reason())
                              .isEqualTo(ServeException.Reason.ENGINE_FAILED);
                          assertThat(engineFailed.getMessage())
                              .contains("the device fell off the bus");
                        });
              });
    }
  }

  @ParameterizedTest
  @EnumSource(FailingJournal.When.class)
  void journalFailingForGoodAtTheSeal_handsOutNoReceipt_thenOrLater(FailingJournal.When when)
      throws Exception {
    GrantChain chain = f.chain(1_000_000);
    FailingJournal journal = FailingJournal.on(JournalEntry.Sealed.class, when);
    try (Steward s = steward(journal)) {
      ServeRequest req = GrantFixture.request("at the seal", 4, 50_000);
      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED));
      assertThat(journal.records()).noneMatch(r -> r.entry() instanceof JournalEntry.Sealed);
      assertNothingMoreIsHandedOut(s, chain);
    }
  }

  @ParameterizedTest
  @EnumSource(FailingJournal.When.class)
  void revocationThatCannotBeJournalled_isRefused(FailingJournal.When when) throws Exception {
    GrantChain chain = f.chain(1_000_000);
    FailingJournal journal = FailingJournal.on(JournalEntry.Revoked.class, when);
    try (Steward s = steward(journal)) {
      Revocation r = Revocation.sign(f.org, chain, GrantFixture.NOW);
      assertThatThrownBy(() -> s.revoke(r))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED));
    }
  }

  /**
   * Regression (found with {@code mesh serve} on a full tmpfs): once the journal had failed, a
   * grant was still decided before its record was refused, so a resend of a presentation that was
   * refused {@code not_recorded} came back 403 {@code presentation-spent} although nothing of it
   * was recorded; and an ungranted serve still ran its engine, then was refused at the seal. Both
   * are refused before any work now.
   */
  @org.junit.jupiter.api.Test
  void onceTheJournalFailed_aServeIsRefusedBeforeAnyWork_andAResendIsNotCalledSpent()
      throws Exception {
    GrantChain chain = f.chain(1_000_000);
    FailingJournal journal =
        FailingJournal.on(JournalEntry.Authorised.class, FailingJournal.When.AWAIT);
    try (Steward s = steward(journal)) {
      ServeRequest req = GrantFixture.request("refused, then sent again", 4, 50_000);
      org.meshjava.jcp.Presentation presented = f.present(chain, req);
      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), presented))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED));
      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), presented))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED);
                assertThat(e.getMessage()).contains("restarted");
              });
      ServeRequest ungranted = GrantFixture.request("ungranted", 4, 50_000);
      assertThatThrownBy(() -> s.serve(ungranted, GrantFixture.payload(ungranted)))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED));
      assertThat(engine.serves()).isZero();
      assertThat(s.spend().remainingUj(chain)).isEqualTo(1_000_000);
    }
  }

  private void assertNothingMoreIsHandedOut(Steward s, GrantChain chain) {
    ServeRequest granted = GrantFixture.request("after the failure", 4, 50_000);
    assertThatThrownBy(
            () -> s.serve(granted, GrantFixture.payload(granted), f.present(chain, granted)))
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED));
    ServeRequest ungranted = GrantFixture.request("ungranted after the failure", 4, 50_000);
    assertThatThrownBy(() -> s.serve(ungranted, GrantFixture.payload(ungranted)))
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED));
  }
}

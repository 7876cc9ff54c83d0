package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.energy.DiscoveryOptions;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalException;
import org.meshjava.receipt.ChainHead;

/**
 * The builder refuses settings that contradict each other, rather than letting one silently win: a
 * given meter is never discovered, so discovery options alongside it would be ignored.
 */
class StewardBuilderTest {

  private static final SigningKey KEY = SigningKey.fromSeed(new byte[32]);

  /** Discovery that probes nothing on this machine, so the test never depends on its counters. */
  private static final DiscoveryOptions PROBE_NOTHING =
      DiscoveryOptions.defaults().withoutRapl().withoutNvml().withoutIoReport();

  @Test
  void discoveryAfterAMeterIsRefusedNamingBoth() {
    Steward.Builder b = Steward.builder(KEY).meter(new EstimatorMeter());

    assertThatThrownBy(() -> b.discovery(PROBE_NOTHING))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("discovery()")
        .hasMessageContaining("meter(");
  }

  @Test
  void aMeterAfterDiscoveryIsRefusedNamingBoth() {
    Steward.Builder b = Steward.builder(KEY).discovery(PROBE_NOTHING);

    assertThatThrownBy(() -> b.meter(new EstimatorMeter()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("meter()")
        .hasMessageContaining("discovery()");
  }

  @Test
  void discoveryAloneIsHonouredAtBuild() {
    try (Steward s =
        Steward.builder(KEY)
            .chainHead(ChainHead.GENESIS)
            .discovery(PROBE_NOTHING)
            .backend(
                new ScriptedEngine(
                    "a", Fidelity.F1, 10, new ArrayList<>(), ScriptedEngine.greedy()))
            .build()) {
      assertThat(s.meterDiscovery()).isPresent();
    }
  }

  @Test
  void aGivenMeterIsUsedAndNothingIsDiscovered() {
    EstimatorMeter meter = new EstimatorMeter();
    try (Steward s =
        Steward.builder(KEY)
            .chainHead(ChainHead.GENESIS)
            .meter(meter)
            .backend(
                new ScriptedEngine(
                    "a", Fidelity.F1, 10, new ArrayList<>(), ScriptedEngine.greedy()))
            .build()) {
      assertThat(s.meter()).isSameAs(meter);
      assertThat(s.meterDiscovery()).isEmpty();
    }
  }

  @Test
  void aStewardWithNoBackendIsRefusedNamingTheBuilderMethod() {
    Steward.Builder b = Steward.ephemeral();

    // The message speaks of the steward and what to call, not of the router it builds inside.
    assertThatThrownBy(b::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("steward needs at least one backend")
        .hasMessageContaining("backend(engine)");
  }

  @Test
  void aClosedStewardRefusesAServeBeforeItsEngineRuns() throws Exception {
    List<String> events = new ArrayList<>();
    Steward s =
        Steward.ephemeral()
            .meter(new EstimatorMeter())
            .backend(new ScriptedEngine("a", Fidelity.F1, 10, events, ScriptedEngine.greedy()))
            .build();
    PromptText prompt = PromptText.of("after close");
    ServeRequest request = ServeRequest.generation(prompt, 4, Fidelity.F1, 1_000_000);
    s.close();

    assertThatThrownBy(() -> s.serve(request, prompt))
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED))
        .hasMessageContaining("closed");
    // No work that no receipt could account for: the engine never ran.
    assertThat(events).isEmpty();
    s.close(); // closing again is harmless
  }

  @Test
  void aKeyBuilderBuiltAgain_isRefused_andTheFirstStewardKeepsItsJournalAndChain()
      throws Exception {
    DurableMemoryJournal journal = new DurableMemoryJournal();
    Steward.Builder b =
        Steward.builder(KEY)
            .chainHead(ChainHead.GENESIS)
            .meter(new EstimatorMeter())
            .journal(journal)
            .backend(
                new ScriptedEngine(
                    "a", Fidelity.F1, 10, new ArrayList<>(), ScriptedEngine.greedy()));
    PromptText prompt = PromptText.of("built once");
    ServeRequest request = ServeRequest.generation(prompt, 4, Fidelity.F1, 1_000_000);
    try (Steward first = b.build()) {
      first.serve(request, prompt);

      // A second steward over the same journal would seal receipt 1 again beside the first's,
      // a fork no restart could replay; the builder refuses before touching the journal.
      assertThatThrownBy(b::build)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("builds one steward");
      assertThat(first.serve(request, prompt).receipt().sequence()).isEqualTo(1);
    }
  }

  @Test
  void aSecondStewardOverAJournalAnOpenStewardHolds_isRefusedLocked_andTheFirstKeepsServing()
      throws Exception {
    DurableMemoryJournal journal = new DurableMemoryJournal();
    PromptText prompt = PromptText.of("one steward per journal");
    ServeRequest request = ServeRequest.generation(prompt, 4, Fidelity.F1, 1_000_000);
    try (Steward first = keyed(journal).chainHead(ChainHead.GENESIS).build()) {
      first.serve(request, prompt);

      // A second builder handed the same open journal would continue the chain from the same head
      // and seal receipt 1 beside the first steward's.
      assertThatThrownBy(() -> keyed(journal).build())
          .isInstanceOfSatisfying(
              StewardStartException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.LOCKED))
          .hasMessageContaining("held by another steward in this process");
      assertThat(first.serve(request, prompt).receipt().sequence()).isEqualTo(1);
    }
    // Closed, the steward gives the journal up: a later builder gets past the claim to the journal
    // itself (which, closed, has nothing to start from), rather than being told it is held.
    assertThat(catchThrowable(() -> keyed(journal).build()))
        .isNotInstanceOf(StewardStartException.class)
        .hasMessageNotContaining("held by another steward");
  }

  /**
   * Regression: the LOCKED refusal's cause repeated the whole message, so a stack trace printed it
   * twice; the cause now says it in a few words of its own, keeping the reason.
   */
  @Test
  void aSecondStewardOverAJournalAnOpenStewardHolds_saysWhyOnce_inAStackTrace() {
    DurableMemoryJournal journal = new DurableMemoryJournal();
    try (Steward first = keyed(journal).chainHead(ChainHead.GENESIS).build()) {
      Throwable refused = catchThrowable(() -> keyed(journal).build());

      assertThat(refused).isInstanceOf(StewardStartException.class);
      assertThat(refused.getCause())
          .isInstanceOfSatisfying(
              JournalException.class,
              c -> assertThat(c.reason()).isEqualTo(JournalException.Reason.LOCKED));
      StringWriter trace = new StringWriter();
      refused.printStackTrace(new PrintWriter(trace));
      assertThat(trace.toString().split("held by another steward in this process", -1)).hasSize(2);
      assertThat(refused.getCause().getMessage()).isNotBlank().doesNotContain(refused.getMessage());
    }
  }

  private static Steward.Builder keyed(Journal journal) {
    return Steward.builder(KEY)
        .meter(new EstimatorMeter())
        .journal(journal)
        .backend(
            new ScriptedEngine("a", Fidelity.F1, 10, new ArrayList<>(), ScriptedEngine.greedy()));
  }

  @Test
  void anEphemeralBuilderRefusedAChainToContinue_closesItsJournal_soTheFileCanBeOpenedAgain(
      @TempDir Path dir) throws Exception {
    Path file = dir.resolve("steward.journal");
    Steward.Builder b =
        Steward.ephemeral()
            .meter(new EstimatorMeter())
            .journal(FileJournal.open(file))
            .chainHead(new ChainHead(5, Optional.of(ContentId.ofBytes(new byte[] {1}))))
            .backend(
                new ScriptedEngine(
                    "a", Fidelity.F1, 10, new ArrayList<>(), ScriptedEngine.greedy()));

    assertThatThrownBy(b::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot continue");
    // As on every other refusal to build: the builder owned the journal, so it let go of the file.
    FileJournal.open(file).close();
  }

  @Test
  void aChainHeadGivenForAJournalThatRecordsReceipts_isATypedConflict_andTheJournalIsLetGo(
      @TempDir Path dir) throws Exception {
    Path file = dir.resolve("steward.journal");
    PromptText prompt = PromptText.of("first start");
    try (Steward first = keyed(FileJournal.open(file)).chainHead(ChainHead.GENESIS).build()) {
      first.serve(ServeRequest.generation(prompt, 4, Fidelity.F1, 1_000_000), prompt);
    }
    Steward.Builder again = keyed(FileJournal.open(file)).chainHead(ChainHead.GENESIS);

    // An application that cannot tell a first start from a later one matches on the type, the
    // counterpart of UnknownChainHeadException, not on the message.
    assertThatThrownBy(again::build)
        .isInstanceOfSatisfying(
            ChainHeadConflictException.class,
            e -> {
              assertThat(e.given()).isEqualTo(ChainHead.GENESIS);
              assertThat(e.lastRecorded()).isZero();
            })
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("give no chain head");
    FileJournal.open(file).close();
  }

  /**
   * Regression: {@code snapshotEvery(n)} and {@code snapshotInterval(d)} without {@code
   * snapshots(store)} built a steward that never wrote a snapshot, so an application that asked for
   * them replayed its whole journal at every restart without being told why.
   */
  @Test
  void aSnapshotCadenceWithoutAStore_isRefusedNamingBoth_andTheJournalIsLetGo(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("steward.journal");
    Steward.Builder byCount =
        keyed(FileJournal.open(file)).chainHead(ChainHead.GENESIS).snapshotEvery(1_000);

    assertThatThrownBy(byCount::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("snapshotEvery(1000)")
        .hasMessageContaining("snapshots(store)");
    FileJournal.open(file).close();

    assertThatThrownBy(
            () ->
                Steward.ephemeral()
                    .meter(new EstimatorMeter())
                    .backend(
                        new ScriptedEngine(
                            "a", Fidelity.F1, 10, new ArrayList<>(), ScriptedEngine.greedy()))
                    .snapshotInterval(java.time.Duration.ofMinutes(5))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("snapshotInterval(PT5M)")
        .hasMessageContaining("snapshots(store)");
  }

  @Test
  void noCadence_orACadenceOfNone_needsNoStore() {
    // snapshotEvery(0) writes none by count: it asks for no snapshots, so it needs no store.
    try (Steward s =
        Steward.ephemeral()
            .meter(new EstimatorMeter())
            .backend(
                new ScriptedEngine(
                    "a", Fidelity.F1, 10, new ArrayList<>(), ScriptedEngine.greedy()))
            .snapshotEvery(0)
            .snapshotInterval(java.time.Duration.ZERO)
            .build()) {
      assertThat(s.readiness().ready()).isTrue();
    }
  }

  /**
   * The identity of an ephemeral steward that sealed one receipt into {@code journal} and closed,
   * as a process that ended leaves its journal.
   */
  private static DidKey sealedOnceByAnEphemeralSteward(Journal journal) throws Exception {
    PromptText prompt = PromptText.of("sealed by the first process");
    try (Steward once =
        Steward.ephemeral()
            .meter(new EstimatorMeter())
            .journal(journal)
            .backend(
                new ScriptedEngine(
                    "a", Fidelity.F1, 10, new ArrayList<>(), ScriptedEngine.greedy()))
            .build()) {
      once.serve(ServeRequest.generation(prompt, 4, Fidelity.F1, 1_000_000), prompt);
      return once.identity();
    }
  }

  /**
   * Regression: a backend list the router refuses (two backends of one name, a cap for none) was
   * checked only after the journal's replay and the meter's probe, the two slow parts of a build (a
   * long journal; a probe that burns a core and logs its finding for a steward that never starts).
   * It is refused first, whatever else is wrong: here a journal another identity sealed, whose
   * refusal came first before.
   */
  @Test
  void twoBackendsOfOneName_areRefusedBeforeTheJournalIsRead_andTheJournalIsLetGo(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("steward.journal");
    sealedOnceByAnEphemeralSteward(FileJournal.open(file));
    Steward.Builder b =
        keyed(FileJournal.open(file))
            .backend(
                new ScriptedEngine(
                    "a", Fidelity.F2, 10, new ArrayList<>(), ScriptedEngine.greedy()));

    assertThatThrownBy(b::build)
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("two backends are named 'a'");
    FileJournal.open(file).close();
  }

  /**
   * Regression: a journal written by another identity (an ephemeral steward of an earlier process,
   * or the same file opened with another key) was refused as "edited or cut journal?", which sent
   * the developer looking for tampering; the refusal now names both identities and what to do.
   */
  @Test
  void aJournalAnotherIdentitySealed_isRefusedNamingBothIdentities_notAsTampered(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("steward.journal");
    DidKey first = sealedOnceByAnEphemeralSteward(FileJournal.open(file));

    Steward.Builder other = keyed(FileJournal.open(file));

    assertThatThrownBy(other::build)
        .isInstanceOf(StewardStartException.class)
        .hasMessageContaining("signed by " + first)
        .hasMessageContaining("not by this steward (" + other.identity() + ")")
        .hasMessageContaining("give this steward a journal of its own")
        .hasMessageNotContaining("edited");
    FileJournal.open(file).close();
  }

  /**
   * Regression: the refusal of a journal another identity sealed named every signer of the
   * checkpoint it met, a witness's cosignature included ("signed by did:key:…, witness.example"),
   * sending the developer after a key that seals nothing. It names the steward whose log the
   * checkpoint is of, as {@code mesh journal verify} speaks of "the steward".
   */
  @Test
  void aJournalAnotherIdentitySealed_isRefusedNamingItsSteward_notTheWitnesses(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("steward.journal");
    SigningKey witness = SigningKey.generate();
    String witnessName = "witness.example";
    // Every checkpoint the first steward journals carries a witness's cosignature, as a cosigned
    // one does.
    Journal cosigning =
        new org.meshjava.journal.ForwardingJournal(FileJournal.open(file)) {
          @Override
          public Pending enqueue(org.meshjava.journal.JournalEntry entry) throws JournalException {
            if (entry instanceof org.meshjava.journal.JournalEntry.Checkpoint c) {
              org.meshjava.receipt.tlog.SignedNote line =
                  org.meshjava.receipt.tlog.SignedNote.sign(c.note().text(), witnessName, witness);
              entry =
                  new org.meshjava.journal.JournalEntry.Checkpoint(
                      c.note().with(line.signatures().get(0)), c.seal());
            }
            return super.enqueue(entry);
          }
        };
    DidKey first = sealedOnceByAnEphemeralSteward(cosigning);

    Steward.Builder other = keyed(FileJournal.open(file));

    assertThatThrownBy(other::build)
        .isInstanceOf(StewardStartException.class)
        .hasMessageContaining("signed by " + first + ", not by this steward")
        .hasMessageNotContaining(witnessName);
    FileJournal.open(file).close();
  }
}

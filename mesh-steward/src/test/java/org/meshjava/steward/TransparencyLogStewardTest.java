package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.InclusionProof;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.NoteVerifierKey;
import org.meshjava.receipt.tlog.SignedNote;

/**
 * The steward keeps an RFC 9162 log of its receipts (SPEC.md §65): checkpoints signed, journalled
 * and reproduced on restart; proofs by receipt sequence; a witness's cosignature kept.
 */
class TransparencyLogStewardTest {
  private static final Pattern PREV = Pattern.compile("\"prev\":\"([0-9a-f]{64})\"");

  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  Path journal() {
    return dir.resolve("steward.journal");
  }

  private static List<ContentId> serve(Steward s, int n, String tag) throws Exception {
    List<ContentId> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ServeRequest req = GrantFixture.request(tag + " " + i, 3, 50_000);
      ids.add(s.serve(req, GrantFixture.payload(req)).envelope().id());
    }
    return ids;
  }

  @Test
  void everyReceipt_isProvablyInTheSignedCheckpoint_andTheLogSurvivesARestart() throws Exception {
    List<ContentId> ids;
    SignedNote kept;
    try (Steward s = f.steward(FileJournal.open(journal())).checkpointEvery(4).build()) {
      assertThat(s.checkpoint()).isEmpty();
      ids = serve(s, 6, "first");
      kept = s.checkpoint().orElseThrow();
    }
    NoteVerifierKey logKey = Checkpoint.logKey(f.steward);
    Checkpoint cp = Checkpoint.open(SignedNote.parse(kept.encoded()), logKey);
    assertThat(cp.size()).isEqualTo(6);
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      assertThat(s.checkpoint()).contains(kept);
      for (int i = 0; i < 6; i++) {
        s.inclusionProof(i, 6).verify(InclusionProof.leafHash(ids.get(i)), cp.root());
      }
      serve(s, 3, "second");
      Checkpoint later = Checkpoint.open(s.checkpoint().orElseThrow(), logKey);
      assertThat(later.size()).isEqualTo(9);
      s.consistencyProof(6, 9).verify(cp.root(), later.root());
    }
  }

  @Test
  void ungrantedSealEdited_andEveryPrevRecomputed_isRefusedAtStart() throws Exception {
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      serve(s, 5, "tamper");
    }
    List<String> lines = new ArrayList<>(Files.readAllLines(journal()));
    int sealed = -1;
    for (int i = 0, seen = 0; i < lines.size(); i++) {
      if (lines.get(i).contains("\"type\":\"Sealed\"") && seen++ == 2) {
        sealed = i;
      }
    }
    String forged = ContentId.ofBytes("another envelope".getBytes(StandardCharsets.UTF_8)).hex();
    lines.set(
        sealed,
        lines
            .get(sealed)
            .replaceFirst("\"envelope_id\":\"[0-9a-f]+\"", "\"envelope_id\":\"" + forged + "\""));
    rehash(lines, sealed + 1);
    Files.write(journal(), lines);
    int checkpoint = lines.size() - 1;
    assertThat(lines.get(checkpoint)).contains("\"type\":\"Checkpoint\"");

    FileJournal j = FileJournal.open(journal());
    assertThatThrownBy(() -> f.steward(j).build())
        .isInstanceOfSatisfying(
            StewardStartException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.REPLAY_REFUSED);
              assertThat(e.record()).hasValue(checkpoint);
              assertThat(e.getMessage()).contains("checkpoint");
            });
  }

  /**
   * Recomputes every record's {@code prev} from {@code from} on, as an attacker without the key.
   */
  private static void rehash(List<String> lines, int from) {
    for (int i = from; i < lines.size(); i++) {
      String prev = ContentId.ofBytes(lines.get(i - 1).getBytes(StandardCharsets.UTF_8)).hex();
      lines.set(
          i,
          PREV.matcher(lines.get(i))
              .replaceFirst(Matcher.quoteReplacement("\"prev\":\"" + prev + "\"")));
    }
  }

  /**
   * Rewrites a granted serve as an attacker with write access but no key: its debit cut to 1 µJ,
   * its {@code Sealed} record turned into the ungranted form (same envelope id, no envelope, no
   * {@code authorised}), so the replay's cross-check of debit against envelope has nothing to
   * compare; then every {@code prev} after the first edit recomputed. Returns the first edited
   * line.
   */
  static int stripGrantedServe(List<String> lines) {
    int debited = -1;
    int sealed = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (debited < 0 && lines.get(i).contains("\"type\":\"Debited\"")) {
        debited = i;
      }
      if (sealed < 0
          && lines.get(i).contains("\"type\":\"Sealed\"")
          && lines.get(i).contains("\"envelope\":")) {
        sealed = i;
      }
    }
    assertThat(debited).isNotNegative();
    assertThat(sealed).isGreaterThan(debited);
    lines.set(
        debited,
        lines
            .get(debited)
            .replaceFirst("\"estimated_uj\":[0-9]+", "\"estimated_uj\":1")
            .replaceFirst("\"measured_uj\":[0-9]+", "\"measured_uj\":1")
            .replaceFirst("\"debited_uj\":[0-9]+", "\"debited_uj\":1"));
    lines.set(
        sealed,
        lines
            .get(sealed)
            .replaceFirst(",\"authorised\":[0-9]+", "")
            .replaceFirst(",\"envelope\":\"[0-9a-f]+\"", ""));
    rehash(lines, debited + 1);
    return debited;
  }

  @Test
  void grantedServeStrippedAndDebitEdited_thenRehashed_isRefusedByTheJournalSeal()
      throws Exception {
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      var chain = f.chain(10_000_000);
      ServeRequest req = GrantFixture.request("granted", 3, 50_000);
      s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      serve(s, 1, "after");
    }
    List<String> lines = new ArrayList<>(Files.readAllLines(journal()));
    stripGrantedServe(lines);
    Files.write(journal(), lines);
    int checkpoint = lines.size() - 1;
    assertThat(lines.get(checkpoint)).contains("\"type\":\"Checkpoint\"");

    FileJournal j = FileJournal.open(journal());
    assertThatThrownBy(() -> f.steward(j).build())
        .isInstanceOfSatisfying(
            StewardStartException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.REPLAY_REFUSED);
              assertThat(e.record()).hasValue(checkpoint);
              assertThat(e.getMessage())
                  .contains("checkpoint's journal seal does not verify")
                  .contains("records before it were changed");
            });
  }

  @Test
  void untouchedJournalWithAGrantedServe_startsAgain() throws Exception {
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      var chain = f.chain(10_000_000);
      ServeRequest req = GrantFixture.request("granted", 3, 50_000);
      s.serve(req, GrantFixture.payload(req), f.present(chain, req));
    }
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      assertThat(s.checkpoint()).isPresent();
    }
  }

  @Test
  void checkpointWithoutItsSeal_isMalformed_andAForgedSeal_isRefused() throws Exception {
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      serve(s, 2, "seal");
    }
    List<String> lines = new ArrayList<>(Files.readAllLines(journal()));
    int checkpoint = lines.size() - 1;
    String line = lines.get(checkpoint);
    assertThat(line).contains("\"seal\":\"");

    lines.set(checkpoint, line.replaceFirst(",\"seal\":\"[0-9a-f]+\"", ""));
    Files.write(journal(), lines);
    FileJournal stripped = FileJournal.open(journal());
    assertThatThrownBy(() -> f.steward(stripped).build())
        .isInstanceOfSatisfying(
            StewardStartException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e.getMessage()).contains("seal");
            });
    stripped.close();

    String forged = "ab".repeat(64);
    lines.set(
        checkpoint, line.replaceFirst("\"seal\":\"[0-9a-f]+\"", "\"seal\":\"" + forged + "\""));
    Files.write(journal(), lines);
    FileJournal j = FileJournal.open(journal());
    assertThatThrownBy(() -> f.steward(j).build())
        .isInstanceOfSatisfying(
            StewardStartException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.REPLAY_REFUSED);
              assertThat(e.record()).hasValue(checkpoint);
              assertThat(e.getMessage()).contains("journal seal does not verify");
            });
  }

  @Test
  void cutJournal_isCaughtByAConsistencyProofFromAnOlderCheckpoint() throws Exception {
    Checkpoint kept;
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      serve(s, 5, "before");
      kept = Checkpoint.open(s.checkpoint().orElseThrow(), Checkpoint.logKey(f.steward));
      serve(s, 3, "after");
    }
    // Cut after the third receipt: a prefix, so the chain of records still forms.
    List<String> lines = Files.readAllLines(journal());
    int third = -1;
    for (int i = 0, seen = 0; i < lines.size(); i++) {
      if (lines.get(i).contains("\"type\":\"Sealed\"") && seen++ == 2) {
        third = i;
      }
    }
    Files.write(journal(), lines.subList(0, third + 1));
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      serve(s, 4, "rewritten");
      Checkpoint now = Checkpoint.open(s.checkpoint().orElseThrow(), Checkpoint.logKey(f.steward));
      assertThat(now.size()).isEqualTo(7);
      assertThatThrownBy(
              () -> s.consistencyProof(kept.size(), now.size()).verify(kept.root(), now.root()))
          .isInstanceOfSatisfying(
              LogException.class,
              e -> assertThat(e.reason()).isEqualTo(LogException.Reason.BAD_CONSISTENCY_PROOF));
    }
  }

  @Test
  void witnessCosignature_isServedWithTheCheckpoint_andKeptAcrossARestart_forgeryRefused()
      throws Exception {
    SigningKey witness = SigningKey.generate();
    NoteVerifierKey witnessKey = new NoteVerifierKey("witness.example", witness.verificationKey());
    SignedNote cosigned;
    try (Steward s = f.steward(FileJournal.open(journal())).witness(witnessKey).build()) {
      serve(s, 2, "witnessed");
      SignedNote cp = s.checkpoint().orElseThrow();
      SignedNote line = SignedNote.sign(cp.text(), witnessKey.name(), witness);
      byte[] bad = line.signatures().get(0).signature();
      bad[10] ^= 1;
      SignedNote forged =
          cp.with(
              new org.meshjava.receipt.tlog.NoteSignature(
                  witnessKey.name(), witnessKey.keyHash(), bad));
      assertThatThrownBy(() -> s.cosign(forged))
          .isInstanceOfSatisfying(
              LogException.class,
              e -> assertThat(e.reason()).isEqualTo(LogException.Reason.BAD_SIGNATURE));
      cosigned = s.cosign(cp.with(line.signatures().get(0)));
      assertThat(s.checkpoint()).contains(cosigned);
    }
    try (Steward s = f.steward(FileJournal.open(journal())).witness(witnessKey).build()) {
      SignedNote served = s.checkpoint().orElseThrow();
      assertThat(served).isEqualTo(cosigned);
      served.verify(witnessKey);
      served.verify(s.logKey());
    }
  }

  @Test
  void witness_answersFromTheTree_withAProofThatVerifiesWithTheDidKeyAlone() throws Exception {
    ServeResult shown;
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      serve(s, 2, "before");
      ServeRequest req = GrantFixture.request("shown", 3, 50_000);
      shown = s.serve(req, GrantFixture.payload(req));
      serve(s, 1, "after");
    }
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      WitnessAnswer a = s.witnessed(shown.receipt(), shown.envelope());
      assertThat(a.verdict()).isEqualTo(WitnessVerdict.HELD);
      WitnessAnswer.Proof p = a.proof().orElseThrow();
      Checkpoint cp = Checkpoint.open(p.checkpoint(), Checkpoint.logKey(f.steward));
      assertThat(cp.size()).isEqualTo(4);
      assertThat(p.inclusion().leafIndex()).isEqualTo(2);
      p.inclusion().verify(InclusionProof.leafHash(shown.envelope().id()), cp.root());
      assertThat(s.witness(shown.receipt(), shown.envelope())).isEqualTo(WitnessVerdict.HELD);
    }
  }

  @Test
  void logTurnedOff_keepsNoTree_witnessStillAnswers_andTurnedOnAgainRebuildsFromEveryReceipt()
      throws Exception {
    ServeResult shown;
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      serve(s, 2, "logged");
    }
    try (Steward s = f.steward(FileJournal.open(journal())).transparencyLog(false).build()) {
      assertThat(s.keepsLog()).isFalse();
      ServeRequest req = GrantFixture.request("unlogged", 3, 50_000);
      shown = s.serve(req, GrantFixture.payload(req));
      assertThat(s.checkpoint()).isEmpty();
      assertThatThrownBy(() -> s.inclusionProof(0, 1))
          .isInstanceOfSatisfying(
              LogException.class,
              e -> assertThat(e.reason()).isEqualTo(LogException.Reason.NOT_KEPT));
      WitnessAnswer a = s.witnessed(shown.receipt(), shown.envelope());
      assertThat(a.verdict()).isEqualTo(WitnessVerdict.HELD);
      assertThat(a.proof()).isEmpty();
    }
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      assertThat(s.logSequenceOf(shown.envelope().id())).hasValue(2);
      Checkpoint cp = Checkpoint.open(s.checkpoint().orElseThrow(), s.logKey());
      assertThat(cp.size()).isEqualTo(3);
      s.inclusionProof(shown.envelope().id(), 3)
          .verify(InclusionProof.leafHash(shown.envelope().id()), cp.root());
    }
  }

  /** SPEC.md §65: a checkpoint is signed and journalled every {@code checkpointEvery} receipts. */
  @Test
  void checkpointCadence_signsAndJournalsOneEveryNReceipts_withoutBeingAsked() throws Exception {
    DurableMemoryJournal journal = new DurableMemoryJournal();
    try (Steward s = f.steward(journal).checkpointEvery(2).build()) {
      serve(s, 5, "cadence");
      List<Long> sizes = new ArrayList<>();
      for (JournalRecord r : journal.records()) {
        if (r.entry() instanceof JournalEntry.Checkpoint c) {
          sizes.add(Checkpoint.open(c.note(), Checkpoint.logKey(f.steward)).size());
        }
      }
      assertThat(sizes).containsExactly(2L, 4L);
    }
  }
}

package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.Gate;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Revocations;
import org.meshjava.jcp.SpendLedger;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.JournalReplay;

/**
 * A journal edited and re-hashed (every {@code prev} recomputed, so the chain still forms) is
 * refused at start and by the replay {@code mesh journal verify} runs: each debit is held to the
 * receipt the steward signed for the same serve (issue 14 item 6), and a {@code Sealed} record must
 * settle an authorisation the journal holds (issue 13 item 7).
 */
class JournalTamperTest {
  private static final Pattern PREV = Pattern.compile("\"prev\":\"([0-9a-f]{64})\"");

  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;
  GrantChain chain;

  Path journal() {
    return dir.resolve("steward.journal");
  }

  @BeforeEach
  void serveThreeGranted() throws Exception {
    chain = f.chain(1_000_000);
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      for (int i = 0; i < 3; i++) {
        ServeRequest req = GrantFixture.request("granted " + i, 4 + i, 50_000);
        s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      }
    }
  }

  @Test
  void untouchedJournal_replays() throws Exception {
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      assertThat(s.head().nextSequence()).isEqualTo(3);
    }
  }

  @Test
  void middleDebitLowered_andEveryPrevRecomputed_isRefused_atStartAndByVerify() throws Exception {
    List<String> lines = Files.readAllLines(journal());
    int debit = nth(lines, "\"type\":\"Debited\"", 1);
    editAndRehash(debit, l -> l.replaceFirst("\"debited_uj\":\\d+", "\"debited_uj\":1"));
    assertRefused(debit + 1, "signed receipt");
  }

  @Test
  void middleDebitLowered_inEveryFigure_isStillRefused() throws Exception {
    List<String> lines = Files.readAllLines(journal());
    int debit = nth(lines, "\"type\":\"Debited\"", 1);
    editAndRehash(
        debit,
        l ->
            l.replaceFirst("\"estimated_uj\":\\d+", "\"estimated_uj\":1")
                .replaceFirst("\"debited_uj\":\\d+", "\"debited_uj\":1"));
    assertRefused(debit + 1, "signed receipt");
  }

  @Test
  void sealedNamingNoAuthorisation_isRefused() throws Exception {
    List<String> lines = Files.readAllLines(journal());
    int sealed = nth(lines, "\"type\":\"Sealed\"", 1);
    editAndRehash(sealed, l -> l.replaceFirst("\"authorised\":\\d+", "\"authorised\":999"));
    assertRefused(sealed, "no debited, unsealed authorisation");
  }

  @Test
  void sealedNamingAChainRecord_isRefused() throws Exception {
    List<String> lines = Files.readAllLines(journal());
    int sealed = nth(lines, "\"type\":\"Sealed\"", 1);
    editAndRehash(sealed, l -> l.replaceFirst("\"authorised\":\\d+", "\"authorised\":0"));
    assertRefused(sealed, "no debited, unsealed authorisation");
  }

  @Test
  void envelopeOfAnotherServe_isRefused() throws Exception {
    List<String> lines = Files.readAllLines(journal());
    int first = nth(lines, "\"type\":\"Sealed\"", 0);
    int second = nth(lines, "\"type\":\"Sealed\"", 1);
    String other = field(lines.get(first), "envelope");
    String otherId = field(lines.get(first), "envelope_id");
    editAndRehash(
        second,
        l ->
            l.replaceFirst("\"envelope\":\"[0-9a-f]+\"", "\"envelope\":\"" + other + "\"")
                .replaceFirst(
                    "\"envelope_id\":\"[0-9a-f]+\"", "\"envelope_id\":\"" + otherId + "\""));
    assertRefused(second, "envelope");
  }

  @Test
  void grantedSealWithItsEnvelopeStripped_isRefused() throws Exception {
    List<String> lines = Files.readAllLines(journal());
    int sealed = nth(lines, "\"type\":\"Sealed\"", 1);
    editAndRehash(sealed, l -> l.replaceFirst(",\"envelope\":\"[0-9a-f]+\"", ""));
    assertThatThrownBy(() -> org.meshjava.journal.internal.JournalFile.read(journal()))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e.seq()).hasValue(sealed);
            });
  }

  private void assertRefused(long record, String says) throws Exception {
    FileJournal j = FileJournal.open(journal());
    assertThatThrownBy(() -> f.steward(j).build())
        .isInstanceOfSatisfying(
            StewardStartException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.REPLAY_REFUSED);
              assertThat(e.record()).hasValue(record);
              assertThat(e.getMessage()).contains(says);
            });
    // What `mesh journal verify` does: read the chain (it forms), then replay.
    JournalFile.Contents c = JournalFile.read(journal());
    Gate gate = Gate.create(f.steward, SpendLedger.inMemory(), Revocations.none());
    assertThatThrownBy(() -> JournalReplay.replay(c.records(), gate))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.REPLAY_REFUSED);
              assertThat(e.seq()).hasValue(record);
            });
  }

  /** Edits one line and recomputes every later {@code prev}, as an attacker with the file would. */
  private void editAndRehash(int index, UnaryOperator<String> edit) throws Exception {
    List<String> lines = new ArrayList<>(Files.readAllLines(journal()));
    lines.set(index, edit.apply(lines.get(index)));
    for (int i = index + 1; i < lines.size(); i++) {
      String prev = ContentId.ofBytes(lines.get(i - 1).getBytes(StandardCharsets.UTF_8)).hex();
      lines.set(
          i,
          PREV.matcher(lines.get(i))
              .replaceFirst(Matcher.quoteReplacement("\"prev\":\"" + prev + "\"")));
    }
    Files.write(journal(), lines);
  }

  private static int nth(List<String> lines, String marker, int n) {
    int seen = 0;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(marker) && seen++ == n) {
        return i;
      }
    }
    throw new AssertionError("no record " + n + " with " + marker);
  }

  private static String field(String line, String key) {
    Matcher m = Pattern.compile("\"" + key + "\":\"([0-9a-f]+)\"").matcher(line);
    assertThat(m.find()).isTrue();
    return m.group(1);
  }
}

package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.journal.JournalHistory.STEWARD;
import static org.meshjava.journal.JournalHistory.T0;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.Energy;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Presentation;
import org.meshjava.journal.internal.IdentifiedChain;
import org.meshjava.journal.internal.JournalChain;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.RecordChain;
import org.meshjava.journal.internal.RecordCodec;

/**
 * The one-line encoding of a record (SPEC.md §60.2), read back through {@link JournalChain}, which
 * checks stored lines exactly as the file journal checks its file: every entry type survives
 * encoding, and a line that is not a record's exact encoding is refused as {@code CORRUPT}, naming
 * the record.
 */
class RecordCodecTest {
  static final ObjectMapper JSON = new ObjectMapper();

  /** A history holding every entry type, and every optional key both present and absent. */
  static JournalHistory everything() {
    JournalHistory h = new JournalHistory();
    h.serve(0, 1_000);
    long a = h.authorise(1);
    h.append(
        new JournalEntry.Debited(
            a, Energy.measured(6_000, 5_000), 6_000, Optional.of(JournalHistory.BREACH)));
    h.sealUngranted(2);
    JournalEntry.Authorised plain = JournalHistory.authorised(3);
    h.append(
        new JournalEntry.Authorised(
            plain.presentation(),
            plain.request(),
            Optional.of(ContentId.ofBytes(new byte[] {7})),
            plain.backend(),
            plain.decidedAt()));
    h.revoke(T0.plusSeconds(100));
    h.suspend(0, 4);
    h.resume();
    h.checkpoint();
    return h;
  }

  @Test
  void everyEntryType_readsBackAsWritten() throws Exception {
    JournalHistory h = everything();
    List<JournalRecord> back = JournalChain.recover(h.lines()).recovered();
    assertThat(back).isEqualTo(h.records());
    JournalFile.Contents c = JournalChain.contents(h.lines());
    assertThat(c.records()).isEqualTo(h.records());
    assertThat(c.tornTail()).isZero();
    assertThat(c.lastHash()).contains(ContentId.ofBytes(h.lines().getLast()));
    for (int i = 0; i < back.size(); i++) {
      assertThat(RecordCodec.encode(back.get(i))).isEqualTo(h.lines().get(i));
    }
    assertThat(new String(h.lines().get(2), StandardCharsets.UTF_8))
        .startsWith("{\"seq\":2,\"prev\":\"")
        .contains(
            "\"entry\":{\"type\":\"Debited\",\"authorised\":1,\"estimated_uj\":1000,"
                + "\"provenance\":\"Estimator\",\"debited_uj\":1000}}");
  }

  @Test
  void storedLinesReadOneByOne_areTheRecordsRecovered_endingWhereRecoveryEnds() throws Exception {
    JournalHistory h = everything();
    JournalChain chain = JournalChain.recover(h.lines());
    assertThat(chain.recoveredEnd().count()).isEqualTo(h.lines().size());
    assertThat(chain.recoveredEnd().lastHash()).contains(ContentId.ofBytes(h.lines().getLast()));
    JournalChain.Reader reader = JournalChain.reader(JournalPosition.GENESIS, new HashMap<>());
    List<JournalRecord> read = new ArrayList<>();
    for (byte[] line : h.lines()) {
      assertThat(reader.next()).isEqualTo(read.size());
      read.add(reader.take(line, "t"));
    }
    assertThat(reader.next()).isEqualTo(h.lines().size());
    assertThat(read).isEqualTo(chain.recovered());
  }

  @Test
  void aChainContinuedFromStoredLines_writesWhatTheJournalWouldHave() throws Exception {
    JournalHistory h = new JournalHistory();
    h.serve(0, 100);
    JournalChain chain = JournalChain.recover(h.lines());
    h.authorise(1);
    List<JournalChain.Encoded> next = chain.advance(JournalHistory.authorised(1));
    assertThat(next).hasSize(1); // the grant chain is already recorded
    assertThat(next.getFirst().line()).isEqualTo(h.lines().getLast());
    assertThat(next.getFirst().record()).isEqualTo(h.records().getLast());

    JournalChain fresh = JournalChain.recover(List.of());
    assertThat(fresh.recovered()).isEmpty();
    List<JournalChain.Encoded> first = fresh.advance(JournalHistory.authorised(1));
    assertThat(first).extracting(e -> e.record().seq()).containsExactly(0L, 1L);
    byte[] line = first.getFirst().line();
    line[0] = 'x';
    assertThat(first.getFirst().line()[0]).isEqualTo((byte) '{');
  }

  @Test
  void aStoredRecordHoldingANewline_isCorrupt() {
    JournalHistory h = new JournalHistory();
    h.sealUngranted(0);
    h.sealUngranted(1);
    List<byte[]> lines = new ArrayList<>(h.lines());
    byte[] last = lines.get(1).clone();
    last[5] = '\n';
    lines.set(1, last);
    assertCorrupt(lines, 1);
  }

  static void assertCorrupt(List<byte[]> lines, long seq) {
    assertThatThrownBy(() -> JournalChain.recover(lines))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e.seq()).hasValue(seq);
            });
  }

  /** {@code h}'s lines with the last one replaced by {@code text}. */
  static List<byte[]> lastReplaced(JournalHistory h, String text) {
    List<byte[]> lines = new ArrayList<>(h.lines());
    lines.set(lines.size() - 1, text.getBytes(StandardCharsets.UTF_8));
    return lines;
  }

  /** {@code h}'s last line edited as a JSON tree (key order kept; a new key goes last). */
  static void assertLastEditIsCorrupt(JournalHistory h, Consumer<ObjectNode> edit)
      throws Exception {
    ObjectNode root = (ObjectNode) JSON.readTree(h.lines().getLast());
    edit.accept(root);
    assertCorrupt(lastReplaced(h, JSON.writeValueAsString(root)), h.lines().size() - 1);
  }

  static ObjectNode entry(ObjectNode root) {
    return (ObjectNode) root.get("entry");
  }

  @Test
  void aLineThatIsNoRecord_isCorrupt() {
    JournalHistory h = new JournalHistory();
    h.sealUngranted(0);
    for (String bad : List.of("", "null", "[]", "1", "{", "not json", "{\"seq\":0}", "\"text\"")) {
      assertCorrupt(lastReplaced(h, bad), 0);
    }
  }

  @Test
  void theTopLevelKeys_areChecked() throws Exception {
    JournalHistory h = new JournalHistory();
    h.sealUngranted(0);
    h.sealUngranted(1);
    assertLastEditIsCorrupt(h, r -> r.put("extra", 1));
    assertLastEditIsCorrupt(h, r -> r.put("seq", -1));
    assertLastEditIsCorrupt(h, r -> r.put("seq", "1"));
    assertLastEditIsCorrupt(h, r -> r.put("seq", 1.0));
    assertLastEditIsCorrupt(h, r -> r.put("seq", 2));
    assertLastEditIsCorrupt(h, r -> r.put("prev", "00"));
    assertLastEditIsCorrupt(h, r -> r.put("prev", 5));
    assertLastEditIsCorrupt(h, r -> r.remove("prev"));
    assertLastEditIsCorrupt(h, r -> r.put("entry", 1));
    assertLastEditIsCorrupt(h, r -> r.remove("entry"));
    assertLastEditIsCorrupt(h, r -> entry(r).remove("type"));
    assertLastEditIsCorrupt(h, r -> entry(r).put("type", 1));
    assertLastEditIsCorrupt(h, r -> entry(r).put("type", "Unknown"));
    assertLastEditIsCorrupt(h, r -> entry(r).put("extra", "x"));
    assertLastEditIsCorrupt(h, r -> entry(r).remove("envelope_id"));
    assertLastEditIsCorrupt(h, r -> entry(r).put("sequence", -1));
    assertLastEditIsCorrupt(h, r -> entry(r).put("envelope_id", "zz"));
  }

  @Test
  void theFirstRecord_hasNoPrev() throws Exception {
    JournalHistory h = new JournalHistory();
    h.sealUngranted(0);
    assertLastEditIsCorrupt(h, r -> r.put("prev", ContentId.ofBytes(new byte[1]).hex()));
  }

  @Test
  void aChainRecord_isChecked() throws Exception {
    JournalHistory h = new JournalHistory();
    h.sealUngranted(0);
    h.authorise(0);
    // the Chain record is now record 1; drop the Authorised after it
    JournalHistory chainLast = new JournalHistory();
    chainLast.sealUngranted(0);
    chainLast.append(new JournalEntry.Chain(JournalHistory.CHAIN));
    assertLastEditIsCorrupt(
        chainLast, r -> entry(r).put("id", ContentId.ofBytes(new byte[1]).hex()));
    assertLastEditIsCorrupt(chainLast, r -> entry(r).put("chain", "00"));
    assertLastEditIsCorrupt(chainLast, r -> entry(r).put("chain", "0g"));
    assertLastEditIsCorrupt(
        chainLast,
        r -> {
          entry(r).put("chain", "a0");
          entry(r).put("id", ContentId.ofBytes(new byte[] {(byte) 0xa0}).hex());
        });
  }

  @Test
  void anAuthorisedRecord_isChecked() throws Exception {
    JournalHistory h = new JournalHistory();
    h.authorise(0);
    assertLastEditIsCorrupt(h, r -> entry(r).put("chain", ContentId.ofBytes(new byte[1]).hex()));
    assertLastEditIsCorrupt(h, r -> entry(r).put("caller", "did:key:zNope"));
    assertLastEditIsCorrupt(h, r -> entry(r).put("nonce", "00"));
    assertLastEditIsCorrupt(h, r -> entry(r).put("signature", "00"));
    assertLastEditIsCorrupt(h, r -> entry(r).put("request", "ff"));
    assertLastEditIsCorrupt(h, r -> entry(r).put("request", "a0"));
    assertLastEditIsCorrupt(h, r -> entry(r).put("backend", 1));
    assertLastEditIsCorrupt(h, r -> entry(r).put("decided_at_ms", -1));
    assertLastEditIsCorrupt(h, r -> entry(r).put("model", "00"));
    assertLastEditIsCorrupt(h, r -> entry(r).remove("backend"));
  }

  @Test
  void aDebitedRecord_isChecked() throws Exception {
    JournalHistory h = new JournalHistory();
    h.debit(h.authorise(0), 6_000);
    assertLastEditIsCorrupt(h, r -> entry(r).put("provenance", "Guess"));
    assertLastEditIsCorrupt(h, r -> entry(r).put("measured_uj", -1));
    assertLastEditIsCorrupt(h, r -> entry(r).put("breach", 1));
    assertLastEditIsCorrupt(h, r -> entry(r).put("debited_uj", "1"));
    assertLastEditIsCorrupt(h, r -> entry(r).put("authorised", -1));
  }

  @Test
  void aSealedRecord_isChecked() throws Exception {
    JournalHistory h = new JournalHistory();
    h.serve(0, 100);
    // a granted receipt's record without its envelope cannot be checked, so it is refused
    assertLastEditIsCorrupt(h, r -> entry(r).remove("envelope"));
    assertLastEditIsCorrupt(h, r -> entry(r).remove("authorised"));
    assertLastEditIsCorrupt(
        h, r -> entry(r).put("envelope_id", ContentId.ofBytes(new byte[1]).hex()));
    assertLastEditIsCorrupt(h, r -> entry(r).put("envelope", ""));
  }

  @Test
  void aSuspendedRecord_isChecked() throws Exception {
    JournalHistory h = new JournalHistory();
    h.suspend(0, 1);
    assertLastEditIsCorrupt(
        h, r -> entry(r).put("envelope_id", ContentId.ofBytes(new byte[1]).hex()));
    assertLastEditIsCorrupt(h, r -> entry(r).put("sequence", -1));
  }

  @Test
  void aSuspensionOnACheckpoint_isASuspendedRecordCarryingTheNote_andReadsBackAsWritten()
      throws Exception {
    JournalHistory h = new JournalHistory();
    h.serve(0, 1_000);
    long s = h.suspendOnCheckpoint(3);
    List<JournalRecord> back = JournalChain.recover(h.lines()).recovered();
    assertThat(back).isEqualTo(h.records());
    JournalEntry.SuspendedByCheckpoint entry =
        (JournalEntry.SuspendedByCheckpoint) back.get((int) s).entry();
    assertThat(new String(h.lines().get((int) s), StandardCharsets.UTF_8))
        .endsWith(
            "\"entry\":{\"type\":\"Suspended\",\"checkpoint\":"
                + JSON.writeValueAsString(entry.checkpoint().encoded())
                + "}}");
    assertLastEditIsCorrupt(h, r -> entry(r).put("checkpoint", "not a signed note"));
    assertLastEditIsCorrupt(h, r -> entry(r).put("checkpoint", 1));
    // One variant or the other, never a mix of a receipt's keys and a checkpoint.
    assertLastEditIsCorrupt(h, r -> entry(r).put("sequence", 0));
  }

  @Test
  void theSecurityRecords_areChecked() throws Exception {
    JournalHistory resumed = new JournalHistory();
    resumed.resume();
    assertLastEditIsCorrupt(resumed, r -> entry(r).put("note", " "));
    assertLastEditIsCorrupt(resumed, r -> entry(r).put("note", 1));

    JournalHistory revoked = new JournalHistory();
    revoked.revoke(T0);
    assertLastEditIsCorrupt(revoked, r -> entry(r).put("revocation", "a0"));

    JournalHistory cp = new JournalHistory();
    cp.checkpoint();
    assertLastEditIsCorrupt(cp, r -> entry(r).put("note", "not a signed note"));
    assertLastEditIsCorrupt(cp, r -> entry(r).put("seal", "00"));
    assertLastEditIsCorrupt(cp, r -> entry(r).remove("seal"));
  }

  @Test
  void aCheckpointWhoseSealIsStillToBeMade_isNeverEncoded() {
    JournalHistory h = new JournalHistory();
    JournalRecord unsigned =
        new JournalRecord(
            0,
            Optional.empty(),
            new JournalEntry.Checkpoint(h.checkpointNote(), JournalSeal.by(STEWARD)));
    assertThatThrownBy(() -> RecordCodec.encode(unsigned))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theSeqOfALine_isReadWithoutDecodingIt() throws Exception {
    assertThat(RecordCodec.seqOf("{\"seq\":12,\"x\":1}".getBytes(StandardCharsets.UTF_8), "t"))
        .isEqualTo(12);
    for (String bad :
        List.of(
            "{\"seq\":-1}",
            "{\"seq\":1.5}",
            "{\"seq\":\"1\"}",
            "{}",
            "[]",
            "nope",
            "",
            "{\"seq\":99999999999999999999}")) {
      assertThatThrownBy(() -> RecordCodec.seqOf(bad.getBytes(StandardCharsets.UTF_8), "t"))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT));
    }
  }

  /**
   * Regression: a last line of NUL bytes was refused as "a line of FILE is not JSON: … at [Source:
   * REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 2]", the
   * parser's location in an operator's one-line reason. Found by a tampering sweep.
   */
  @Test
  void seqOf_aLineThatIsNotJson_saysWhichLine_withoutTheParsersLocation() {
    byte[] nuls = new byte[16];
    assertThatThrownBy(() -> RecordCodec.seqOf(nuls, "the last line of j.log (at byte 7)"))
        .isInstanceOfSatisfying(
            JournalException.class,
            e ->
                assertThat(e.getMessage())
                    .startsWith("the last line of j.log (at byte 7) is not JSON: ")
                    .doesNotContain("[Source:")
                    .doesNotContain("REDACTED"));
  }

  @Test
  void theChainsLastHash_isTheHashOfTheLastLine() {
    RecordChain chain = new RecordChain(new RecordCodec(), 0, Optional.empty());
    assertThat(chain.last()).isEmpty();
    List<RecordChain.Encoded> e = chain.advance(new JournalEntry.Resumed("x"));
    assertThat(chain.next()).isEqualTo(1);
    assertThat(chain.last()).contains(ContentId.ofBytes(e.getFirst().line()));
  }

  /**
   * A chain handed to the encoder with its id (RecordChain hashes an authorisation's chain once and
   * passes it on) changes no record's bytes: every line a journal writes, for every entry kind and
   * for authorisations on two different chains, is what the one-argument encoder writes when it
   * hashes the chain itself; a {@code Chain} or {@code Authorised} record given its own chain, and
   * every record given either chain of the history (for a chain record, the other chain's id must
   * not be written in its place), encodes to those same bytes.
   */
  @Test
  void aChainGivenToTheEncoder_changesNoRecordsBytes_forEveryKind_andEveryChain() throws Exception {
    JournalHistory h = everything();
    GrantChain second = JournalHistory.chain(JournalHistory.OTHER, JournalHistory.STEWARD_ID);
    JournalEntry.Authorised onSecond = JournalHistory.authorised(9);
    h.append(
        new JournalEntry.Authorised(
            Presentation.sign(
                JournalHistory.OTHER, second, onSecond.request().id(), JournalHistory.nonce(9)),
            onSecond.request(),
            Optional.empty(),
            onSecond.backend(),
            onSecond.decidedAt()));
    h.append(JournalHistory.authorised(10));
    h.suspendOnCheckpoint(0);
    IdentifiedChain secondChain = IdentifiedChain.of(second);
    IdentifiedChain firstChain = IdentifiedChain.of(JournalHistory.CHAIN);
    ContentId secondId = secondChain.id();
    ContentId firstId = firstChain.id();
    assertThat(secondId).isNotEqualTo(firstId);

    List<JournalRecord> records = h.records();
    List<byte[]> lines = h.lines();
    Set<Class<?>> kinds = new HashSet<>();
    List<ContentId> chainsWritten = new ArrayList<>();
    for (int i = 0; i < records.size(); i++) {
      JournalRecord r = records.get(i);
      kinds.add(r.entry().getClass());
      String plain = new String(RecordCodec.encode(r), StandardCharsets.UTF_8);
      assertThat(new String(lines.get(i), StandardCharsets.UTF_8))
          .as("line %d as written", i)
          .isEqualTo(plain);
      assertThat(new String(RecordCodec.encode(r, null), StandardCharsets.UTF_8))
          .as("record %d, no chain given", i)
          .isEqualTo(plain);
      Optional<GrantChain> own =
          switch (r.entry()) {
            case JournalEntry.Chain c -> Optional.of(c.chain());
            case JournalEntry.Authorised a -> Optional.of(a.presentation().chain());
            default -> Optional.empty();
          };
      if (r.entry() instanceof JournalEntry.Chain c) {
        chainsWritten.add(c.id());
      }
      List<IdentifiedChain> given = new ArrayList<>(List.of(firstChain, secondChain));
      own.ifPresent(c -> given.add(IdentifiedChain.of(c)));
      for (IdentifiedChain g : given) {
        assertThat(new String(RecordCodec.encode(r, g), StandardCharsets.UTF_8))
            .as("record %d (%s), given %s", i, r.entry().getClass().getSimpleName(), g.id())
            .isEqualTo(plain);
      }
      own.ifPresent(
          c ->
              assertThat(plain)
                  .as("record %d names its chain", r.seq())
                  .contains(ContentId.ofBytes(c.encode()).hex()));
    }
    assertThat(chainsWritten).containsExactly(firstId, secondId);
    assertThat(kinds).containsExactlyInAnyOrder(JournalEntry.class.getPermittedSubclasses());
  }
}

package org.meshjava.receipt.tlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.receipt.tlog.internal.MerkleTree;
import org.meshjava.receipt.tlog.internal.TransparencyLog;

/**
 * Edges of the transparency log that mutation testing (issue 21 item 4) found unchecked: leaf
 * indices, the sizes a tree answers for, lookups of a hash it does not hold, the log's accessors,
 * cosignatures that do not verify, and the exact limits of notes, keys and proofs.
 */
class TlogBoundariesTest {
  private static final SigningKey STEWARD = seeded(1);
  private static final SigningKey WITNESS = seeded(2);
  private static final NoteVerifierKey WITNESS_KEY =
      new NoteVerifierKey("witness.example/w", WITNESS.verificationKey());

  private static SigningKey seeded(int b) {
    byte[] seed = new byte[32];
    seed[0] = (byte) b;
    return SigningKey.fromSeed(seed);
  }

  private static byte[] entry(int i) {
    return ("entry " + i).getBytes(StandardCharsets.UTF_8);
  }

  private static ContentId envelope(int i) {
    return ContentId.ofBytes(entry(i));
  }

  private static LogException.Reason refusal(ThrowingCall call) {
    try {
      call.run();
    } catch (LogException e) {
      return e.reason();
    }
    throw new AssertionError("not refused");
  }

  @FunctionalInterface
  private interface ThrowingCall {
    void run() throws LogException;
  }

  @Test
  void treeHashOfBase64_readsOnlyTheTextBase64Writes() {
    TreeHash h = TreeHash.leaf("x".getBytes(StandardCharsets.UTF_8));
    String text = h.base64();
    assertThat(TreeHash.ofBase64(text)).isEqualTo(h);
    // 32 bytes end in one '=' and two unused bits in the last digit: without the '=', or with
    // those bits set, Java's own decoder reads the same bytes.
    String unpadded = text.substring(0, text.length() - 1);
    char last = text.charAt(text.length() - 2);
    String bitsSet =
        text.substring(0, text.length() - 2)
            + "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
                .charAt(
                    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".indexOf(last)
                        | 1)
            + "=";
    assertThat(Base64.getDecoder().decode(unpadded)).isEqualTo(h.bytes());
    assertThat(Base64.getDecoder().decode(bitsSet)).isEqualTo(h.bytes());
    for (String other : List.of(unpadded, bitsSet, "", "AAAA")) {
      assertThatThrownBy(() -> TreeHash.ofBase64(other))
          .as(other)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void append_returnsEachLeafsIndex() {
    MerkleTree tree = new MerkleTree();
    for (int i = 0; i < 5; i++) {
      assertThat(tree.append(entry(i))).isEqualTo(i);
    }
    assertThat(tree.appendLeafHash(TreeHash.leaf(entry(5)))).isEqualTo(5);
    assertThat(tree.size()).isEqualTo(6);
  }

  @Test
  void sizes_fromZeroToTheTreeSize_areAnswered_andNoOthers() throws Exception {
    MerkleTree tree = new MerkleTree();
    for (int i = 0; i < 5; i++) {
      tree.append(entry(i));
    }
    assertThat(tree.root(0)).isEqualTo(TreeHash.empty());
    assertThat(tree.root(5)).isEqualTo(tree.root());
    assertThat(refusal(() -> tree.root(6))).isEqualTo(LogException.Reason.OUT_OF_RANGE);
    assertThat(refusal(() -> tree.root(-1))).isEqualTo(LogException.Reason.OUT_OF_RANGE);
    assertThat(tree.leafHash(0)).isEqualTo(TreeHash.leaf(entry(0)));
    assertThat(tree.leafHash(4)).isEqualTo(TreeHash.leaf(entry(4)));
    assertThat(refusal(() -> tree.leafHash(5))).isEqualTo(LogException.Reason.OUT_OF_RANGE);
    assertThat(refusal(() -> tree.leafHash(-1))).isEqualTo(LogException.Reason.OUT_OF_RANGE);
    assertThat(tree.inclusionProof(4, 5).treeSize()).isEqualTo(5);
    assertThat(refusal(() -> tree.inclusionProof(4, 6)))
        .isEqualTo(LogException.Reason.OUT_OF_RANGE);
    assertThat(refusal(() -> tree.inclusionProof(5, 5)))
        .isEqualTo(LogException.Reason.OUT_OF_RANGE);
    assertThat(tree.consistencyProof(5, 5).path()).isEmpty();
    assertThat(tree.consistencyProof(1, 5).path()).isNotEmpty();
    assertThat(refusal(() -> tree.consistencyProof(0, 5)))
        .isEqualTo(LogException.Reason.OUT_OF_RANGE);
    assertThat(refusal(() -> tree.consistencyProof(1, 6)))
        .isEqualTo(LogException.Reason.OUT_OF_RANGE);
    assertThat(refusal(() -> tree.consistencyProof(4, 3)))
        .isEqualTo(LogException.Reason.OUT_OF_RANGE);
  }

  @Test
  void indexOf_aHashNoLeafHas_isEmpty_acrossTheTablesGrowth() {
    MerkleTree tree = new MerkleTree();
    TreeHash zeros = TreeHash.of(new byte[TreeHash.LENGTH]);
    for (int i = 0; i < 200; i++) {
      tree.append(entry(i));
      assertThat(tree.indexOf(zeros)).as("size %d", i + 1).isEmpty();
      assertThat(tree.indexOf(TreeHash.leaf(entry(i)))).hasValue(i);
    }
  }

  @Test
  void transparencyLog_answersBySequenceAndByEnvelope() throws Exception {
    TransparencyLog log = new TransparencyLog(STEWARD, 10, Set.of(WITNESS_KEY));
    assertThat(log.firstSequence()).isEqualTo(10);
    for (int i = 0; i < 4; i++) {
      log.append(10 + i, envelope(i));
    }
    assertThat(log.size()).isEqualTo(4);
    assertThat(log.leafHashAt(2)).isEqualTo(InclusionProof.leafHash(envelope(2)));
    assertThat(log.sequenceOf(envelope(3))).hasValue(13);
    assertThat(log.sequenceOf(envelope(9))).isEmpty();
    InclusionProof proof = log.inclusionProof(envelope(1), 4);
    assertThat(proof.leafIndex()).isEqualTo(1);
    assertThat(proof).isEqualTo(log.inclusionProof(11, 4));
    assertThat(refusal(() -> log.inclusionProof(envelope(9), 4)))
        .isEqualTo(LogException.Reason.OUT_OF_RANGE);
    assertThat(log.latestCheckpoint()).isEmpty();
    SignedNote note = log.signNext().orElseThrow();
    log.publish(note);
    assertThat(log.latestCheckpoint().orElseThrow().size()).isEqualTo(4);
    assertThat(log.latestCheckpoint().orElseThrow().root()).isEqualTo(log.root(4));
  }

  @Test
  void publish_dropsAWitnessLineThatDoesNotVerify() throws Exception {
    TransparencyLog log = new TransparencyLog(STEWARD, 0, Set.of(WITNESS_KEY));
    log.append(0, envelope(0));
    SignedNote note = log.signNext().orElseThrow();
    NoteSignature forged =
        new NoteSignature(WITNESS_KEY.name(), WITNESS_KEY.keyHash(), new byte[64]);
    log.publish(note.with(forged));
    assertThat(log.latest().orElseThrow().signatures())
        .containsExactlyElementsOf(note.signatures());
  }

  @Test
  void checkpoint_ofAnotherOrigin_isRefusedAsMalformed() {
    NoteVerifierKey logKey = new NoteVerifierKey("log.example/a", STEWARD.verificationKey());
    String body = new Checkpoint("log.example/b", 1, TreeHash.leaf(entry(0))).body();
    SignedNote note = SignedNote.sign(body, logKey.name(), STEWARD);
    assertThat(refusal(() -> Checkpoint.open(note, logKey)))
        .isEqualTo(LogException.Reason.MALFORMED_CHECKPOINT);
    assertThat(new Checkpoint("log.example/a", 0, TreeHash.empty()).size()).isZero();
  }

  @Test
  void notes_carryOneToAHundredSignatures() throws Exception {
    SignedNote one = SignedNote.sign("text\n", "k", WITNESS);
    List<NoteSignature> hundred =
        new ArrayList<>(Collections.nCopies(100, one.signatures().get(0)));
    SignedNote full = new SignedNote("text\n", hundred);
    assertThat(SignedNote.parse(full.encoded())).isEqualTo(full);
    hundred.add(one.signatures().get(0));
    assertThatThrownBy(() -> new SignedNote("text\n", hundred))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(refusal(() -> SignedNote.parse(full.encoded() + one.signatures().get(0).line())))
        .isEqualTo(LogException.Reason.MALFORMED_NOTE);
  }

  @Test
  void noteText_mustEndInANewline_andMayBeJustOne() throws Exception {
    NoteSignature line = SignedNote.sign("x\n", "k", WITNESS).signatures().get(0);
    for (String bad : new String[] {"", "no newline", "tab\t\n", "del\u007f\n"}) {
      assertThatThrownBy(() -> new SignedNote(bad, List.of(line)))
          .as("'%s'", bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
    SignedNote minimal = SignedNote.sign("\n", "k", WITNESS);
    assertThat(SignedNote.parse(minimal.encoded())).isEqualTo(minimal);
  }

  @Test
  void keyNames_withWhiteSpaceOrPlus_areRefused() {
    for (String bad : new String[] {"a b", "+abc", "abc+", "a\u00a0b", "tab\t"}) {
      assertThatThrownBy(() -> new NoteVerifierKey(bad, WITNESS.verificationKey()))
          .as("'%s'", bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void signatureLines_needMoreThanTheFourByteKeyHash() {
    String four = Base64.getEncoder().encodeToString(new byte[] {1, 2, 3, 4});
    String five = Base64.getEncoder().encodeToString(new byte[] {1, 2, 3, 4, 5});
    assertThat(refusal(() -> SignedNote.parse("t\n\n\u2014 k " + four + "\n")))
        .isEqualTo(LogException.Reason.MALFORMED_NOTE);
    assertThat(catchParse("t\n\n\u2014 k " + five + "\n").signatures().get(0).signature())
        .containsExactly(5);
  }

  private static SignedNote catchParse(String note) {
    try {
      return SignedNote.parse(note);
    } catch (LogException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void noteSignatures_areEqualExactlyWhenNameHashAndSignatureAre() {
    NoteSignature s = new NoteSignature("k", 7, new byte[] {1});
    assertThat(s)
        .isEqualTo(new NoteSignature("k", 7, new byte[] {1}))
        .hasSameHashCodeAs(new NoteSignature("k", 7, new byte[] {1}));
    assertThat(s).isNotEqualTo(new NoteSignature("j", 7, new byte[] {1}));
    assertThat(s).isNotEqualTo(new NoteSignature("k", 8, new byte[] {1}));
    assertThat(s).isNotEqualTo(new NoteSignature("k", 7, new byte[] {2}));
    assertThat(s).isNotEqualTo("k");
  }

  @Test
  void proofs_acceptTheirExactLimits() {
    TreeHash h = TreeHash.empty();
    assertThat(new InclusionProof(0, 1, List.of()).leafIndex()).isZero();
    assertThat(new InclusionProof(0, 1, Collections.nCopies(64, h)).path()).hasSize(64);
    assertThatThrownBy(() -> new InclusionProof(0, 1, Collections.nCopies(65, h)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new InclusionProof(1, 1, List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(new ConsistencyProof(3, 3, List.of()).fromSize()).isEqualTo(3);
    assertThat(new ConsistencyProof(1, 2, Collections.nCopies(128, h)).path()).hasSize(128);
    assertThatThrownBy(() -> new ConsistencyProof(1, 2, Collections.nCopies(129, h)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ConsistencyProof(0, 2, List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ConsistencyProof(3, 2, List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}

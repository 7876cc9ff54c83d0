package org.meshjava.receipt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.meshjava.receipt.TestReceipts.KEY;
import static org.meshjava.receipt.TestReceipts.OTHER_KEY;
import static org.meshjava.receipt.TestReceipts.id;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.Blake3;

/** The output commitment and its opening (§6.4), recomputed here from their written formulas. */
class OutputCommitmentTest {
  private static final TokenSequence PROMPT = TokenSequence.of(1, 2, 3, 0x01020304, -1);
  private static final TokenSequence TOKENS = TokenSequence.of(42, 7, 50_000);

  private static byte[] littleEndian(TokenSequence t) {
    ByteBuffer b = ByteBuffer.allocate(4 * t.size()).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < t.size(); i++) {
      b.putInt((int) t.get(i));
    }
    return b.array();
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  @Test
  void payloadDigest_isBlake3OfTheDomainStringWithNulThenTheLittleEndianIds() {
    byte[] domain = "mesh/1 prompt payload\0".getBytes(StandardCharsets.US_ASCII);
    assertThat(domain).hasSize(22).endsWith((byte) 0);
    assertThat(littleEndian(TokenSequence.of(0x01020304))).containsExactly(4, 3, 2, 1);

    byte[] expected = Blake3.hash(concat(domain, littleEndian(PROMPT)));

    assertThat(OutputCommitment.payloadDigest(PROMPT).bytes()).isEqualTo(expected);
  }

  @Test
  void commit_isBlake3OfDomainOpeningRequestIdPayloadAndTokens() {
    Opening opening = Opening.derive(KEY, id("req"));
    ContentId payload = OutputCommitment.payloadDigest(PROMPT);
    byte[] domain = "mesh/1 output commitment\0".getBytes(StandardCharsets.US_ASCII);

    byte[] expected =
        Blake3.hash(
            concat(
                domain, opening.bytes(), id("req").bytes(), payload.bytes(), littleEndian(TOKENS)));

    assertThat(OutputCommitment.commit(opening, id("req"), payload, TOKENS).bytes())
        .isEqualTo(expected);
  }

  @Test
  void commit_changesWhenAnyOneInputChanges() {
    Opening opening = Opening.derive(KEY, id("req"));
    ContentId payload = OutputCommitment.payloadDigest(PROMPT);
    ContentId base = OutputCommitment.commit(opening, id("req"), payload, TOKENS);

    List<ContentId> variants =
        List.of(
            OutputCommitment.commit(Opening.derive(KEY, id("other")), id("req"), payload, TOKENS),
            OutputCommitment.commit(opening, id("other"), payload, TOKENS),
            OutputCommitment.commit(
                opening,
                id("req"),
                OutputCommitment.payloadDigest(TokenSequence.of(1, 2, 3)),
                TOKENS),
            OutputCommitment.commit(opening, id("req"), payload, TokenSequence.of(42, 7, 50_001)),
            OutputCommitment.commit(opening, id("req"), payload, TokenSequence.of(7, 42, 50_000)),
            OutputCommitment.commit(opening, id("req"), payload, TokenSequence.of(42, 7)),
            OutputCommitment.commit(opening, id("req"), payload, TokenSequence.empty()));

    assertThat(variants).doesNotContain(base).doesNotHaveDuplicates();
  }

  @Test
  void opening_isKeyedBlake3OfTheRequestIdUnderAKeyDerivedFromTheSeed() {
    assertThat(Opening.KEY_CONTEXT).isEqualTo("mesh-java 2026-11 output commitment opening key v1");
    byte[] openingKey = Blake3.deriveKey(Opening.KEY_CONTEXT, KEY.exportSeed());

    byte[] expected = Blake3.keyedHash(openingKey, id("req").bytes());

    assertThat(Opening.derive(KEY, id("req")).bytes()).isEqualTo(expected);
  }

  @Test
  void opening_isStableForTheSameKeyAndRequest_andDiffersAcrossRequestsAndKeys() {
    Opening a = Opening.derive(KEY, id("req"));

    assertThat(Opening.derive(KEY, id("req"))).isEqualTo(a);
    assertThat(Opening.derive(KEY, id("req 2"))).isNotEqualTo(a);
    assertThat(Opening.derive(OTHER_KEY, id("req"))).isNotEqualTo(a);
    assertThat(a.bytes()).hasSize(32);
  }

  @Test
  void opening_ofAnyLengthButThirtyTwo_isRefused() {
    assertThatIllegalArgumentException().isThrownBy(() -> Opening.of(new byte[31]));
    assertThatIllegalArgumentException().isThrownBy(() -> Opening.of(new byte[33]));
    assertThat(Opening.of(new byte[32]).bytes()).hasSize(32);
  }
}

package org.meshjava.receipt;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.Blake3;

/** §6.4: the exact formulas, and that the commitment binds each of its four inputs. */
class OutputCommitmentClaimsTest {
  private static final Opening OPENING = Opening.of(new byte[32]);
  private static final ContentId REQUEST = ContentId.ofBytes(new byte[] {1});

  @Test
  void payloadDigest_isDomainSeparatedBlake3OfTheLittleEndianIds() {
    byte[] expected =
        Blake3.hash(
            "mesh/1 prompt payload\0".getBytes(StandardCharsets.US_ASCII),
            new byte[] {1, 0, 0, 0, 0, 1, 0, 0});
    assertThat(OutputCommitment.payloadDigest(TokenSequence.of(1, 256)).bytes())
        .isEqualTo(expected);
  }

  @Test
  void commit_isDomainSeparatedBlake3OfOpeningRequestPayloadTokens() {
    ContentId payload = OutputCommitment.payloadDigest(TokenSequence.of(5));
    byte[] opening = new byte[32];
    opening[31] = 9;
    byte[] expected =
        Blake3.hash(
            "mesh/1 output commitment\0".getBytes(StandardCharsets.US_ASCII),
            opening,
            REQUEST.bytes(),
            payload.bytes(),
            new byte[] {2, 0, 0, 0, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff});
    assertThat(
            OutputCommitment.commit(Opening.of(opening), REQUEST, payload, TokenSequence.of(2, -1))
                .bytes())
        .isEqualTo(expected);
  }

  @Test
  void commit_bindsRequestOpeningPayloadAndTokens() {
    ContentId payload = OutputCommitment.payloadDigest(TokenSequence.of(1, 2));
    TokenSequence tokens = TokenSequence.of(3, 4);
    byte[] otherOpening = new byte[32];
    otherOpening[0] = 1;
    Set<ContentId> seen = new HashSet<>();
    seen.add(OutputCommitment.commit(OPENING, REQUEST, payload, tokens));
    seen.add(OutputCommitment.commit(Opening.of(otherOpening), REQUEST, payload, tokens));
    seen.add(OutputCommitment.commit(OPENING, ContentId.ofBytes(new byte[] {2}), payload, tokens));
    seen.add(
        OutputCommitment.commit(
            OPENING, REQUEST, OutputCommitment.payloadDigest(TokenSequence.of(1, 3)), tokens));
    seen.add(OutputCommitment.commit(OPENING, REQUEST, payload, TokenSequence.of(3, 5)));
    seen.add(OutputCommitment.commit(OPENING, REQUEST, payload, TokenSequence.of(3)));
    seen.add(OutputCommitment.commit(OPENING, REQUEST, payload, TokenSequence.empty()));
    assertThat(seen).hasSize(7);
  }

  @Test
  void commit_isNotThePlainHashOfTheTokens() {
    TokenSequence one = TokenSequence.of(42);
    ContentId payload = OutputCommitment.payloadDigest(TokenSequence.empty());
    assertThat(OutputCommitment.commit(OPENING, REQUEST, payload, one))
        .isNotEqualTo(ContentId.ofBytes(one.toLittleEndian()));
  }

  @Test
  void openingKey_derivesADistinctOpeningPerRequest_andTheSameAfterRebuildingTheKey() {
    Opening a = Opening.Key.of(ClaimsFixtures.KEY).open(REQUEST);
    Opening b = Opening.Key.of(ClaimsFixtures.KEY).open(REQUEST);
    Opening c = Opening.Key.of(ClaimsFixtures.KEY).open(ContentId.ofBytes(new byte[] {2}));
    assertThat(a).isEqualTo(b).isNotEqualTo(c);
    byte[] key = Blake3.deriveKey(Opening.KEY_CONTEXT, ClaimsFixtures.KEY.exportSeed());
    assertThat(a.bytes()).isEqualTo(Blake3.keyedHash(key, REQUEST.bytes()));
    assertThat(Opening.Key.of(ClaimsFixtures.KEY).toString())
        .doesNotContain(a.hex())
        .doesNotContain(java.util.HexFormat.of().formatHex(key))
        .contains("secret");
    assertThat(Opening.derive(ClaimsFixtures.KEY, REQUEST)).isEqualTo(a).hasSameHashCodeAs(b);
    assertThat(a.hashCode()).isNotZero();
    assertThat(a.toString()).contains(a.hex());
  }
}

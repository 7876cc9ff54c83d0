package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.jcp.Fixture.CALLER_DID;
import static org.meshjava.jcp.Fixture.ORG_DID;
import static org.meshjava.jcp.Fixture.T0;
import static org.meshjava.jcp.Fixture.T_END;

import java.util.LinkedHashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.cbor.CanonicalCbor;

/**
 * The memo's size bound is inclusive: an envelope of exactly {@link DecodedEnvelopes#MAX_ENCODED}
 * bytes is kept, one byte more is not. (The bound's other side, a large envelope never kept, is in
 * {@link DecodedEnvelopesTest}.)
 */
class DecodedEnvelopesSizeBoundTest {
  @AfterEach
  void forget() {
    DecodedEnvelopes.clear();
  }

  @Test
  void anEnvelopeOfExactlyTheLargestSize_isKept_andOneByteLonger_isNot() throws Exception {
    // Asked by value, not by the memo's size: it is shared by the whole JVM, and a test class
    // before this one may have left envelopes in it.
    byte[] atBound = envelopeOfLength(DecodedEnvelopes.MAX_ENCODED);
    SignedGrant kept = SignedGrant.decode(atBound);
    assertThat(DecodedEnvelopes.get(CanonicalCbor.decode(atBound))).isSameAs(kept);

    byte[] overBound = envelopeOfLength(DecodedEnvelopes.MAX_ENCODED + 1);
    SignedGrant.decode(overBound);
    assertThat(DecodedEnvelopes.get(CanonicalCbor.decode(overBound))).isNull();
  }

  /**
   * An unsigned envelope encoding to exactly {@code length} bytes: resource ids fill it to within
   * an id's size, then a second action's name, makes up the rest.
   */
  private static byte[] envelopeOfLength(int length) {
    Set<ContentId> ids = new LinkedHashSet<>();
    for (int i = 0; ; i++) {
      ids.add(ContentId.ofBytes(new byte[] {(byte) i, (byte) (i >> 8)}));
      int shortBy = length - envelope(ids, "x").length;
      assertThat(shortBy).as("no envelope of %d bytes", length).isNotNegative();
      // Each character more is a byte more, and one more for the header past 23 characters.
      for (int extra : new int[] {shortBy, shortBy - 1}) {
        if (extra >= 0 && extra < 64) {
          byte[] encoded = envelope(ids, "x" + "a".repeat(extra));
          if (encoded.length == length) {
            return encoded;
          }
        }
      }
    }
  }

  private static byte[] envelope(Set<ContentId> ids, String action) {
    Grant g =
        Grant.builder()
            .issuer(ORG_DID)
            .subject(CALLER_DID)
            .actions(Set.of(Grant.INFER, action))
            .resources(Resources.only(ids))
            .budgetUj(1_000)
            .window(T0, T_END)
            .build();
    return SignedGrant.of(g, new byte[SignedGrant.SIGNATURE_LENGTH]).encode();
  }
}

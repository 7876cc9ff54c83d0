package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.journal.JournalHistory.OTHER;
import static org.meshjava.journal.JournalHistory.STEWARD;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;

/** The journal seal (SPEC.md §65, "The journal seal"): its message, and what it verifies. */
class JournalSealTest {
  static final Optional<ContentId> PREV = Optional.of(ContentId.ofBytes(new byte[] {1}));

  @Test
  void theMessage_isDomainSequenceAndPrev() {
    byte[] domain = "mesh/1 journal seal\0".getBytes(StandardCharsets.UTF_8);
    ByteBuffer expected = ByteBuffer.allocate(domain.length + 8 + 32);
    expected.put(domain).putLong(0x0102030405060708L).put(PREV.orElseThrow().bytes());
    assertThat(JournalSeal.message(0x0102030405060708L, PREV)).isEqualTo(expected.array());

    ByteBuffer genesis = ByteBuffer.allocate(domain.length + 8 + 32);
    genesis.put(domain).putLong(0);
    assertThat(JournalSeal.message(0, Optional.empty())).isEqualTo(genesis.array());
  }

  @Test
  void aSeal_verifiesOnlyForItsPlace_underItsKey() {
    JournalSeal.Signed s = new JournalSeal.ToSign(STEWARD).sign(7, PREV);
    assertThat(s.verifies(STEWARD.verificationKey(), 7, PREV)).isTrue();
    assertThat(s.verifies(STEWARD.verificationKey(), 8, PREV)).isFalse();
    assertThat(s.verifies(STEWARD.verificationKey(), 7, Optional.empty())).isFalse();
    assertThat(s.verifies(OTHER.verificationKey(), 7, PREV)).isFalse();
    assertThat(JournalSeal.by(STEWARD)).isEqualTo(new JournalSeal.ToSign(STEWARD));
  }

  @Test
  void aSignedSeal_isA64ByteSignature_copiedInAndOut() {
    assertThatThrownBy(() -> new JournalSeal.Signed(new byte[63]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new JournalSeal.Signed(new byte[65]))
        .isInstanceOf(IllegalArgumentException.class);
    byte[] bytes = new byte[64];
    bytes[0] = 1;
    JournalSeal.Signed s = new JournalSeal.Signed(bytes);
    bytes[0] = 2;
    assertThat(s.signature()[0]).isEqualTo((byte) 1);
    s.signature()[0] = 3;
    assertThat(s.signature()[0]).isEqualTo((byte) 1);

    byte[] same = new byte[64];
    same[0] = 1;
    assertThat(s)
        .isEqualTo(new JournalSeal.Signed(same))
        .isNotEqualTo(new JournalSeal.Signed(new byte[64]));
    assertThat(s).isNotEqualTo(JournalSeal.by(STEWARD));
    assertThat(s.hashCode()).isEqualTo(new JournalSeal.Signed(same).hashCode());
    assertThat(s.hashCode()).isNotEqualTo(new JournalSeal.Signed(new byte[64]).hashCode());
    assertThat(s.toString()).contains("01" + "00".repeat(63));
  }
}

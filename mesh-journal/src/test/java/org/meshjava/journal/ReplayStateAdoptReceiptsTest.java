package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.internal.ReplayState;

/**
 * {@link ReplayState#adoptReceipts}: a replay takes over the receipt ids of a snapshot it wrote
 * (read back in place) only when they are its own, and goes on replaying over them.
 */
class ReplayStateAdoptReceiptsTest {
  @Test
  void adoptReceipts_takesOnlyTheSameIds_andTheNextReceiptsFollowThem() throws Exception {
    JournalHistory h = new JournalHistory();
    h.serve(0, 1_000);
    h.sealUngranted(1);
    List<JournalRecord> before = h.records();
    ReplayState s = ReplayStateTest.oneByOne(before, JournalHistory.gate());
    byte[] packed = s.receipts().packed();
    byte[] altered = packed.clone();
    altered[packed.length - 1] ^= 1;

    assertThat(s.adoptReceipts(ReceiptIds.of(0, Arrays.copyOf(packed, 32))))
        .as("fewer ids")
        .isFalse();
    assertThat(s.adoptReceipts(ReceiptIds.of(0, altered))).as("another last id").isFalse();
    assertThat(s.adoptReceipts(ReceiptIds.of(1, packed))).as("another first receipt").isFalse();
    ReceiptIds saved = ReceiptIds.over(0, ByteBuffer.wrap(packed.clone()).asReadOnlyBuffer());
    assertThat(s.adoptReceipts(saved)).isTrue();
    assertThat(s.receipts()).isSameAs(saved);

    // The next receipt is checked against the adopted ids (its envelope's prev) and added to them.
    h.sealUngranted(2);
    List<JournalRecord> after = h.records();
    s.applyAll(after.subList(before.size(), after.size()));
    assertThat(s.receipts().size()).isEqualTo(3);
    assertThat(s.receipts().get(2))
        .contains(((JournalEntry.Sealed) after.getLast().entry()).envelopeId());
  }
}

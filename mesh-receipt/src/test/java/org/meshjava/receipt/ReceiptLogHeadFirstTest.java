package org.meshjava.receipt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.meshjava.receipt.TestReceipts.KEY;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.receipt.internal.ReceiptLog;

/**
 * The head after a receipt is worked out before the receipt is recorded: a throw between recording
 * and moving the head (here the head past the last sequence a {@code long} holds; in a steward, the
 * heap running out) left a recorded receipt the chain had not moved past, so the next append
 * stamped and recorded the same sequence again, and a journal holding two receipts of one number is
 * refused at the next start.
 */
class ReceiptLogHeadFirstTest {

  /** Regression: both appends recorded receipt 9223372036854775807. */
  @Test
  void aHeadThatCannotFollowTheReceipt_failsTheAppendBeforeItIsRecorded() {
    ContentId prev = ContentId.ofBytes(new byte[] {1});
    ReceiptLog log = ReceiptLog.resume(KEY, new ChainHead(Long.MAX_VALUE, Optional.of(prev)));
    List<Long> recorded = new ArrayList<>();

    for (int i = 0; i < 2; i++) {
      assertThatIllegalArgumentException()
          .isThrownBy(
              () ->
                  log.append(
                      TestReceipts.generationDraft(), s -> recorded.add(s.receipt().sequence())));
    }

    assertThat(recorded).isEmpty();
    assertThat(log.head()).isEqualTo(new ChainHead(Long.MAX_VALUE, Optional.of(prev)));
  }

  /**
   * A full chain says so. Regression: the refusal read "nextSequence must be non-negative:
   * -9223372036854775808", the sum that overflowed, which names nothing an operator could act on.
   */
  @Test
  void aFullChain_isRefusedInWordsThatSaySo() {
    ReceiptLog log =
        ReceiptLog.resume(
            KEY, new ChainHead(Long.MAX_VALUE, Optional.of(ContentId.ofBytes(new byte[] {1}))));

    assertThatIllegalArgumentException()
        .isThrownBy(() -> log.append(TestReceipts.generationDraft(), s -> s))
        .withMessageContaining("the receipt chain is full");
  }
}

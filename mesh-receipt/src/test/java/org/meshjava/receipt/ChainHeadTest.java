package org.meshjava.receipt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;

/**
 * A chain's head is the position its next receipt takes (§6.3): it obeys {@link ChainPosition}'s
 * rule, with the same refusals.
 */
class ChainHeadTest {
  private static final ContentId SOME = ContentId.ofBytes(new byte[] {1});

  @Test
  void theHeadIsTheNextReceiptsPosition() {
    assertThat(ChainHead.GENESIS.next()).isEqualTo(new ChainPosition(0, Optional.empty()));
    assertThat(new ChainHead(7, Optional.of(SOME)).next())
        .isEqualTo(new ChainPosition(7, Optional.of(SOME)));
  }

  @Test
  void prevIsAbsentExactlyAtSequenceZero_asForAPosition() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ChainHead(0, Optional.of(SOME)))
        .withMessage("prev is absent exactly at sequence 0 (§6.3); sequence 0 has a prev");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ChainHead(3, Optional.empty()))
        .withMessage("prev is absent exactly at sequence 0 (§6.3); sequence 3 has no prev");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new ChainHead(-1, Optional.of(SOME)))
        .withMessageContaining("nextSequence");
  }
}

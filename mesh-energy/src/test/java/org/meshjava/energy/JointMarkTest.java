package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * §3.3: a domain summed from several counters is live only as far as every part is. {@link
 * JointMark} moves once each part seen has moved since it last did, by one, and never on a read
 * that names no part.
 */
class JointMarkTest {
  @Test
  void theMarkMoves_onlyOnceEveryPartHasMoved_thenWaitsForAllAgain() {
    JointMark m = new JointMark();
    assertThat(m.mark()).isZero();

    m.endRead();
    assertThat(m.mark()).as("a read naming no part").isZero();

    m.saw("die0", true);
    m.saw("die1", false);
    m.endRead();
    assertThat(m.mark()).as("die1 frozen").isZero();

    m.saw("die0", false);
    m.saw("die1", true);
    m.endRead();
    assertThat(m.mark()).as("each moved, over two reads").isEqualTo(1);

    m.saw("die0", true);
    m.saw("die1", false);
    m.endRead();
    assertThat(m.mark()).as("die1 has not moved since the mark").isEqualTo(1);

    m.saw("die0", false);
    m.saw("die1", true);
    m.endRead();
    assertThat(m.mark()).isEqualTo(2);
  }
}

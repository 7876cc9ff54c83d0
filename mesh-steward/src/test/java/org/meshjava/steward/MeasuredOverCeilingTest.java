package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.Provenance;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.MeshReceipt;

/**
 * A serve whose hardware reading exceeds its request's joule ceiling. The router admitted it on an
 * estimate within the ceiling (§4), the engine cannot be stopped part-way, and the work has run, so
 * the steward seals what the meter read, never the ceiling in its place, and debits all of it (§2
 * phase 3). A grant it takes past its budget says so in {@code grant_breach}; one with budget left
 * records no breach, and the overspend stays visible as {@code measured_uj} against the ceiling
 * that {@code request_id} binds.
 */
class MeasuredOverCeilingTest {
  private static final long CEILING_UJ = 60_000;

  private final GrantFixture f = new GrantFixture();

  private Steward.Builder reading(long measuredUj) {
    return f.steward(new DurableMemoryJournal())
        .meter(new RecordingMeter(new ArrayList<>(), OptionalLong.of(measuredUj)));
  }

  /** What a granted serve sealed, and what its grant has left after it. */
  private record Granted(MeshReceipt receipt, long remainingUj) {}

  /** One serve on a grant of 100 000 µJ at a 60 000 µJ ceiling, whose meter reads {@code uj}. */
  private Granted servedOnGrant(long measuredUj) throws Exception {
    GrantChain chain = f.chain(100_000);
    try (Steward s = reading(measuredUj).build()) {
      ServeRequest req = GrantFixture.request("over", 4, CEILING_UJ);
      MeshReceipt r =
          Jcr1.open(s.serve(req, GrantFixture.payload(req), f.present(chain, req)).envelope())
              .receipt();
      return new Granted(r, s.spend().remainingUj(chain));
    }
  }

  @Test
  void granted_readingPastTheCeilingAndTheBudget_isSealedAsRead_debitedWhole_andABreach()
      throws Exception {
    Granted g = servedOnGrant(150_000);
    assertThat(g.receipt().energy().provenance()).isEqualTo(Provenance.HwShunt);
    assertThat(g.receipt().energy().measuredUj()).hasValue(150_000);
    assertThat(g.receipt().energy().estimatedUj()).isLessThanOrEqualTo(CEILING_UJ);
    assertThat(g.receipt().grantBreach()).contains(DenialLabel.BUDGET_EXHAUSTED);
    assertThat(g.remainingUj()).isZero();
  }

  @Test
  void granted_readingPastTheCeilingWithinTheBudget_isSealedAsRead_andDebitedWhole()
      throws Exception {
    Granted g = servedOnGrant(80_000);
    assertThat(g.receipt().energy().measuredUj()).hasValue(80_000);
    assertThat(g.receipt().grantBreach()).isEmpty();
    assertThat(g.remainingUj()).isEqualTo(20_000);
  }

  @Test
  void ungranted_readingPastTheCeiling_isSealedAsRead_andTheWedgeUsesIt() throws Exception {
    try (Steward s = reading(150_000).build()) {
      ServeRequest req = GrantFixture.request("over", 4, CEILING_UJ);
      MeshReceipt r = Jcr1.open(s.serve(req, GrantFixture.payload(req)).envelope()).receipt();
      assertThat(r.energy().measuredUj()).hasValue(150_000);
      assertThat(r.grantBreach()).isEmpty();
      long accepted = r.counters().tokensAccepted();
      assertThat(accepted).isPositive();
      assertThat(r.ujPerAcceptedToken()).hasValue(150_000 / accepted);
    }
  }
}
